// Guards input_policy in config.yaml: safe defaults (input still off globally), every key validated, caps enforced, no unknown keys.
import { describe, expect, it } from 'vitest';
import { DEFAULT_GUARDED_COMMANDS } from '../policy/input.js';
import { inputPolicyOf } from './effective-policy.js';
import { ConfigError, parseConfigText } from './parse.js';

describe('input_policy', () => {
  it('defaults: input off globally; readable sessions, text allowed, 12000 characters, guarded commands', () => {
    const c = parseConfigText('', 'x.yaml');
    expect(c.permissions.terminal_input).toBe(false);
    expect(c.input_policy).toEqual({
      denied_session_patterns: [],
      allow_send_text: true,
      max_text_length: 12_000,
      allow_invisible_characters: false,
      guarded_commands: [...DEFAULT_GUARDED_COMMANDS],
      guarded_command_allow: [],
      run_allowed_shells: ['bash', 'zsh', 'sh', 'dash'],
      review: 'off',
      review_always_session_patterns: [],
      review_timeout_seconds: 900,
    });
    for (const cmd of ['ssh', 'sudo', 'su', 'doas', 'passwd', 'mysql', 'psql', 'mongo', 'redis-cli']) expect(c.input_policy.guarded_commands).toContain(cmd);
    // Cloud and cluster control planes, database shells, and tmux itself (its client reaches every session).
    for (const cmd of ['docker', 'kubectl', 'gcloud', 'aws', 'az', 'mysql', 'psql', 'mongosh', 'redis-cli', 'tmux']) expect(c.input_policy.guarded_commands).toContain(cmd);
    // No foreground restriction unless the operator sets one.
    expect(inputPolicyOf(c).allowedForegroundCommands).toBeNull();
    // Unset allowed patterns mean "the read whitelist": a read grant alone never admits input.
    expect(inputPolicyOf(c).allowedPatterns).toEqual(c.allowed_session_patterns);
    // Defaults are fresh objects: one parsed config cannot change another.
    expect(parseConfigText('', 'y.yaml').input_policy).not.toBe(c.input_policy);
  });

  it('accepts a full policy', () => {
    const c = parseConfigText(
      [
        'permissions: { terminal_input: true }',
        'input_policy:',
        '  allowed_session_patterns: ["agent-*"]',
        '  denied_session_patterns: ["agent-prod*"]',
        '  allow_send_text: false',
        '  max_text_length: 500',
        '  guarded_commands: [ssh, kubectl]',
        '  guarded_command_allow: [{ session: agent-ops, commands: [ssh] }]',
        '  allowed_foreground_commands: [claude, codex, node]',
      ].join('\n'),
      'x.yaml',
    );
    expect(inputPolicyOf(c).allowedForegroundCommands).toEqual(['claude', 'codex', 'node']);
    expect(c.input_policy).toMatchObject({ allow_send_text: false, max_text_length: 500, guarded_commands: ['ssh', 'kubectl'] });
    expect(c.input_policy.guarded_command_allow).toEqual([{ session: 'agent-ops', commands: ['ssh'] }]);
  });

  it.each([
    ['max_text_length: 0', /input_policy\.max_text_length/],
    ['max_text_length: 32001', /input_policy\.max_text_length/],
    ['allow_send_text: "yes"', /input_policy\.allow_send_text/],
    ['guarded_command_allow: [{ session: a, commands: [] }]', /input_policy\.guarded_command_allow\.0\.commands/],
    ['guarded_command_allow: [{ session: a, commands: [ssh], everything: true }]', /unknown key 'input_policy\.guarded_command_allow\.0\.everything'/],
    ['allow_everything: true', /unknown key 'input_policy\.allow_everything'/],
    ['allowed_foreground_commands: claude', /input_policy\.allowed_foreground_commands/],
    ['allowed_foreground_commands: [""]', /input_policy\.allowed_foreground_commands\.0/],
    // terminal_run wraps commands for POSIX shells only: fish is refused by name, with why.
    ['run_allowed_shells: [bash, fish]', /input_policy\.run_allowed_shells\.1.*fish and other shells quote and report the exit status differently/],
  ])('refuses %s', (line, message) => {
    expect(() => parseConfigText(`input_policy:\n  ${line}\n`, 'x.yaml')).toThrow(ConfigError);
    expect(() => parseConfigText(`input_policy:\n  ${line}\n`, 'x.yaml')).toThrow(message);
  });
});
