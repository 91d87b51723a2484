// The dashboard's pure decisions: attention order and count, quick answers read from a waiting screen, keystrokes mapped to allowlisted keys or text, and a parked agent's countdown.
import { SENSITIVE_KEYS } from '@terminal-mcp/contract';
import { describe, expect, it } from 'vitest';
import { attentionCount, attentionLevel, sortByAttention, titleWithCount } from './attention.js';
import { remainingText } from './countdown.js';
import { detectQuickAnswers } from './quick-answers.js';
import type { SessionView } from './session-view.js';
import { terminalDataToSteps } from './terminal-keys.js';

const view = (name: string, extra: Partial<SessionView> = {}): SessionView => ({
  name,
  session_id: '$1',
  created: '1',
  attached: 0,
  windows: 1,
  last_activity: '2026-01-01T00:00:00Z',
  read_allowed: true,
  read_granted: false,
  input_allowed: false,
  input_granted: false,
  whitelisted: true,
  sensitive: false,
  grantable: true,
  grant: null,
  ...extra,
});
const st = (status: 'RUNNING' | 'IDLE' | 'WAITING_INPUT' | 'UNKNOWN') => ({ status: { status, reason: '' } });

describe('attention', () => {
  it.each([
    [view('a', st('WAITING_INPUT')), 'waiting'],
    [view('a'), 'error'],
    [view('a', st('RUNNING')), 'running'],
    [view('a', st('IDLE')), 'idle'],
    [view('a', st('UNKNOWN')), 'unknown'],
    [view('a', { read_allowed: false }), 'restricted'],
  ] as const)('%# level', (s, level) => {
    expect(attentionLevel(s)).toBe(level);
  });

  it('sorts waiting, error, running, idle, unknown, restricted; stable within a level', () => {
    const list = [
      view('r1', { read_allowed: false }),
      view('idle', st('IDLE')),
      view('run1', st('RUNNING')),
      view('unk', st('UNKNOWN')),
      view('wait', st('WAITING_INPUT')),
      view('run2', st('RUNNING')),
      view('live-broken', st('IDLE')),
    ];
    expect(sortByAttention(list, new Set(['live-broken'])).map((s) => s.name)).toEqual(['wait', 'live-broken', 'run1', 'run2', 'idle', 'unk', 'r1']);
    expect(attentionCount(list, new Set(['live-broken']))).toBe(2);
    expect(attentionCount([view('x', st('IDLE'))])).toBe(0);
  });

  it('puts the count first in the title', () => {
    expect(titleWithCount('Terminal MCP', 0)).toBe('Terminal MCP');
    expect(titleWithCount('Terminal MCP', 3)).toBe('(3) Terminal MCP');
  });
});

describe('detectQuickAnswers', () => {
  const keysOf = (lines: string[]) => detectQuickAnswers(lines).map((a) => a.keys.join('+'));
  it.each([
    [['$ ./deploy.sh', 'Continue? [y/N] '], ['y+Enter', 'n+Enter', 'Enter']],
    [['Overwrite file? (y/n)', '', ''], ['y+Enter', 'n+Enter', 'Enter']],
    [['Proceed [Y/n]'], ['y+Enter', 'n+Enter', 'Enter']],
    [['Really? (yes/no) '], ['y+Enter', 'n+Enter', 'Enter']],
    [['Do you want to proceed?', '❯ 1. Yes', '  2. Yes, and don\'t ask again', '  3. No, and tell Claude what to do differently (esc)'], ['1', '2', '3', 'Enter']],
    [['1) apple', '2) pear', '#? '], ['1+Enter', '2+Enter', 'Enter']],
    [['Press any key'], ['Enter']],
    // A single numbered line is not a menu, and a [y/n] far above the prompt does not count.
    [['1. only one item', '$ '], ['Enter']],
    [['Answer [y/n] in the docs', 'a', 'b', 'c', 'Password: '], ['Enter']],
  ])('%j', (lines, expected) => {
    expect(keysOf(lines)).toEqual(expected);
  });

  it('labels menu items with their text, cut short', () => {
    const answers = detectQuickAnswers(['› 1. Yes, proceed (y)', '  2. No, and tell Codex what to do differently and some more words here (esc)']);
    expect(answers[0]!.label).toBe('1. Yes, proceed (y)');
    expect(answers[1]!.label.length).toBeLessThanOrEqual(43);
  });
});

describe('terminalDataToSteps', () => {
  it.each([
    ['hello world', [{ kind: 'text', text: 'hello world' }]],
    ['ls\r', [{ kind: 'text', text: 'ls' }, { kind: 'keys', keys: ['Enter'] }]],
    ['\x1b[A\x1b[B\x1bOC\x1bOD', [{ kind: 'keys', keys: ['Up', 'Down', 'Right', 'Left'] }]],
    ['\x1b', [{ kind: 'keys', keys: ['Escape'] }]],
    ['\t\x1b[Z\x7f\x1b[3~\x1b[5~\x1b[6~\x1b[H\x1b[F', [{ kind: 'keys', keys: ['Tab', 'BTab', 'BSpace', 'Delete', 'PageUp', 'PageDown', 'Home', 'End'] }]],
    ['\x03', [{ kind: 'keys', keys: ['C-c'] }]],
    ['\r\x03\x04', [{ kind: 'keys', keys: ['Enter'] }, { kind: 'keys', keys: ['C-c'] }, { kind: 'keys', keys: ['C-d'] }]],
    ['\x0c\x15', [{ kind: 'keys', keys: ['C-l', 'C-u'] }]],
    ['é ✓', [{ kind: 'text', text: 'é ✓' }]],
    ['\x1b[15~', [{ kind: 'refused', sequence: '\\x1b[15~' }]],
    ['\x01a', [{ kind: 'refused', sequence: '\\x01' }, { kind: 'text', text: 'a' }]],
  ])('%j', (data, steps) => {
    expect(terminalDataToSteps(data, new Set(SENSITIVE_KEYS))).toEqual(steps);
  });
});

describe('remainingText', () => {
  it('words the time left down to the second, and nothing once it passed', () => {
    const at = Date.parse('2026-07-10T12:00:00Z');
    expect(remainingText(at + 9_000, at)).toBe('9s');
    expect(remainingText(at + 4 * 60_000 + 7_000, at)).toBe('4m 07s');
    expect(remainingText(at + 2 * 3600_000 + 5 * 60_000 + 9_000, at)).toBe('2h 05m 09s');
    expect(remainingText(at + 3 * 86_400_000 + 3600_000, at)).toBe('3d 1h 00m');
    expect(remainingText(at + 400, at)).toBe('1s');
    expect(remainingText(at, at)).toBeNull();
    expect(remainingText(at - 1000, at)).toBeNull();
  });
});
