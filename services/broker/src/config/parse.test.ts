// Guards config.yaml validation: defaults when absent, original keys accepted, and every bad value or unknown key named in the error; a launch profile's node must be a configured node.
import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfigText } from './parse.js';
import { DEFAULT_CONFIG } from './schema.js';

describe('parseConfigText', () => {
  it('gives the safe defaults for an empty file', () => {
    const c = parseConfigText('', 'x.yaml');
    expect(c).toEqual(DEFAULT_CONFIG);
    expect(c.permissions).toEqual({ terminal_read: true, terminal_input: false, session_lifecycle: false });
    expect(c.allowed_session_patterns).toEqual(['claude-*', 'codex-*', 'agent-*', 'test-*']);
    expect(c.max_capture_lines).toBe(2000);
    expect(c.default_tail_lines).toBe(200);
  });

  it('accepts the keys of the original Python Terminal MCP', () => {
    const c = parseConfigText(
      `permissions: { terminal_read: true, terminal_input: true }\nallowed_session_patterns: ["work-*"]\nmax_capture_lines: 500\ndefault_tail_lines: 50\n`,
      'x.yaml',
    );
    expect(c.permissions.terminal_input).toBe(true);
    expect(c.allowed_session_patterns).toEqual(['work-*']);
    expect(c.max_capture_lines).toBe(500);
  });

  it.each([
    ['max_capture_lines: lots', /key 'max_capture_lines' has value "lots"/],
    ['max_capture_lines: 0', /key 'max_capture_lines' has value 0: .*>=1/],
    ['permissions: { terminal_read: "yes" }', /key 'permissions.terminal_read' has value "yes"/],
    ['allowed_session_patterns: "claude-*"', /key 'allowed_session_patterns' has value "claude-\*"/],
    ['max_captur_lines: 10', /unknown key 'max_captur_lines'/],
    ['permissions: { terminal_read: true, terminal_write: true }', /unknown key 'permissions.terminal_write'/],
    ['default_tail_lines: 5000\nmax_capture_lines: 100', /default_tail_lines must not exceed max_capture_lines/],
    ['- just\n- a list', /top level must be a mapping/],
    ['permissions: [unclosed', /not valid YAML/],
  ])('refuses %j with a message naming the key', (text, message) => {
    let error: unknown;
    try {
      parseConfigText(text, 'bad.yaml');
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toContain('bad.yaml');
    expect((error as Error).message).toMatch(message);
  });

  describe('launch profiles on nodes', () => {
    const NODES = 'nodes: [{ name: gpu, ssh: dev@gpu.example }]\n';
    const profile = (extra: string) => `launch_profiles: [{ name: agent, command: [codex], roots: [/srv/work]${extra} }]\n`;

    it('accepts a profile that names a configured node, with recovery too', () => {
      const c = parseConfigText(NODES + profile(', node: gpu'), 'x.yaml');
      expect(c.launch_profiles[0]?.node).toBe('gpu');
      expect(c.launch_profiles[0]?.recover).toBe('never');
      expect(parseConfigText(NODES + profile(', node: gpu, recover: on_exit'), 'x.yaml').launch_profiles[0]?.recover).toBe('on_exit');
    });

    it.each([
      [NODES + profile(', node: cpu'), /every launch_profiles node must name a configured node/],
      [profile(', node: gpu'), /every launch_profiles node must name a configured node/],
      [NODES + profile(', node: local'), /leave node out for this host/],
      [NODES + profile(', node: "-oProxyCommand=x"'), /node: a configured node name/],
    ])('refuses %j', (text, message) => {
      expect(() => parseConfigText(text, 'bad.yaml')).toThrow(message);
    });
  });
});
