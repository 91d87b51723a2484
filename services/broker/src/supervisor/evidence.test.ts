// Guards the supervisor's own evidence: DONE only from an exact marker line, ERROR only from line-start error markers on the last lines, IDLE from quiet time, the transition rules (dedupe, same-failure and iteration stops) and the attention stop patterns.
import type { SessionStatusResult } from '@terminal-mcp/contract';
import { describe, expect, it } from 'vitest';
import { observe } from './evidence.js';
import { stopPatternIn } from './stop-patterns.js';
import { stepWatch } from './transition.js';

const status = (s: SessionStatusResult['status'], reason: string, idle = 0): SessionStatusResult => ({
  session: 's',
  session_id: '$1',
  status: s,
  reason,
  current_command: 'bash',
  in_copy_mode: false,
  last_activity: new Date(0).toISOString(),
  idle_seconds: idle,
});

describe('observe', () => {
  it.each<[string, SessionStatusResult, string, string]>([
    ['a prompt stays WAITING_INPUT even with a marker above', status('WAITING_INPUT', 'prompt "[y/N]" on the last line'), 'TERMINAL_MCP_DONE\nContinue? [y/N] ', 'WAITING_INPUT'],
    ['the marker line alone is DONE', status('IDLE', 'bash prompt at the bottom'), '$ ./run.sh\nTERMINAL_MCP_DONE\n$ ', 'DONE'],
    ['the command that echoes the marker is not DONE', status('UNKNOWN', 'sleep in the foreground, no output for 1s', 1), '$ echo TERMINAL_MCP_DONE; sleep 9', 'UNKNOWN'],
    ['a python traceback is ERROR', status('IDLE', 'bash prompt at the bottom'), 'Traceback (most recent call last):\n  File "a.py", line 1\nKeyError: 42\n$ ', 'ERROR'],
    ['a traceback still being printed (frames only, no exception line yet) is not ERROR yet', status('UNKNOWN', 'python3 in the foreground, no output for 0s'), '$ python3 a.py\nTraceback (most recent call last):\n  File "a.py", line 1, in <module>', 'UNKNOWN'],
    ['an older error above a traceback still being printed is ERROR', status('UNKNOWN', 'python3 in the foreground, no output for 0s'), 'npm ERR! code 1\nTraceback (most recent call last):', 'ERROR'],
    ['an agent mentioning an error in prose is not ERROR', status('IDLE', 'claude code idle footer'), '⏺ I fixed the TypeError: it was a typo.\n❯ ', 'IDLE'],
    ['a traceback just printed beats recent-output RUNNING', status('RUNNING', 'sleep produced output 0s ago'), 'KeyError: 42', 'ERROR'],
    ['a busy agent footer stays RUNNING', status('RUNNING', 'claude code busy footer "esc to interrupt"'), 'Error: x\n✻ Thinking… (esc to interrupt)', 'RUNNING'],
    ['quiet past the threshold is IDLE', status('UNKNOWN', 'vim in the foreground, no output for 50s', 50), '~\n~', 'IDLE'],
    ['quiet below the threshold stays UNKNOWN', status('UNKNOWN', 'vim in the foreground, no output for 5s', 5), '~\n~', 'UNKNOWN'],
  ])('%s', (_name, st, screen, state) => {
    expect(observe(st, screen.split('\n'), 'TERMINAL_MCP_DONE', 45).state).toBe(state);
  });

  it('names the exception line of a complete traceback, not its header', () => {
    const obs = observe(status('IDLE', 'bash prompt at the bottom'), ['Traceback (most recent call last):', '  File "<string>", line 1, in <module>', 'KeyError: 42', '$ '], 'TERMINAL_MCP_DONE', 45);
    expect(obs.reason).toContain('KeyError: 42');
  });

  it('previews only the redacted, cut bottom of the screen', () => {
    const obs = observe(status('IDLE', 'x'), ['export GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123456789', 'y'.repeat(2000)], 'M', 45);
    expect(obs.preview).not.toContain('ghp_abcdefghijklmnopqrstuvwxyz0123456789');
    expect(obs.preview.length).toBeLessThanOrEqual(400);
  });
});

describe('stepWatch', () => {
  const obs = (state: 'ERROR' | 'IDLE' | 'WAITING_INPUT', hash: string) => ({ state, reason: 'r', hash, preview: '' });
  const limits = { sameFailureLimit: 2, maxIterations: 5 };
  const w = (state: string, hash: string, failureCount = 0, iterationCount = 0) => ({ state, lastOutputHash: hash, failureCount, iterationCount });

  it('records a new state once, and a repeat not at all', () => {
    expect(stepWatch(w('RUNNING', 'a'), obs('WAITING_INPUT', 'b'), true, limits).events.map((e) => e.type)).toEqual(['attention_required']);
    expect(stepWatch(w('WAITING_INPUT', 'b'), obs('WAITING_INPUT', 'b'), true, limits).events).toEqual([]);
    // A different prompt in the same state is news.
    expect(stepWatch(w('WAITING_INPUT', 'b'), obs('WAITING_INPUT', 'c'), false, limits).events.map((e) => e.type)).toEqual(['attention_required']);
    // A changing IDLE screen is not.
    expect(stepWatch(w('IDLE', 'b'), obs('IDLE', 'c'), false, limits).events).toEqual([]);
  });

  it('stops after the same error repeats same_failure_limit times, counting polls only', () => {
    const first = stepWatch(w('RUNNING', 'a'), obs('ERROR', 'e'), true, limits);
    expect(first.next.failureCount).toBe(1);
    const lookedAgain = stepWatch({ ...first.next }, obs('ERROR', 'e'), false, limits);
    expect(lookedAgain.disable).toBeNull();
    const polled = stepWatch({ ...first.next }, obs('ERROR', 'e'), true, limits);
    expect(polled.disable).toContain('same_failure_limit 2');
    expect(polled.events.map((e) => e.type)).toEqual(['stalled']);
  });

  it('stops at max_iterations whatever the state', () => {
    expect(stepWatch(w('IDLE', 'a', 0, 4), obs('IDLE', 'a'), true, limits).disable).toContain('max_iterations 5');
  });
});

describe('stopPatternIn', () => {
  it.each([
    ['[sudo] password for alice:', 'credential'],
    ['Enter passphrase for key', 'credential'],
    ['Paste your API key:', 'credential'],
    ['Are you sure you want to delete the branch?', 'confirmation'],
    ['This action cannot be undone.', 'confirmation'],
    ['rm -rf build', 'destructive'],
    ['git push --force origin main', 'destructive'],
    ['DROP TABLE users;', 'destructive'],
    ['sudo apt upgrade', 'destructive'],
  ])('stops on %j', (text, kind) => {
    expect(stopPatternIn(text, 'x')?.kind).toBe(kind);
  });

  it.each(['continue', 'y', '✳ Working… (2m 18s · ↓ 4.8k tokens)', 'Run the tests again and fix the failures'])('lets %j through', (text) => {
    expect(stopPatternIn(text, 'x')).toBeNull();
  });
});
