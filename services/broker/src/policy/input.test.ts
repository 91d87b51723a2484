// Guards the input gates: each refusal has its own code, gates apply in order, deny wins, sensitive names need a literal entry, controls are refused (never stripped), keys come only from the allowlist; a terminal_run command goes only to an allowed shell at its prompt, as one line, running no guarded command as the bash parse reads it.
import { ALLOWED_KEYS } from '@terminal-mcp/contract';
import { beforeAll, describe, expect, it } from 'vitest';
import { createBashParserLoader } from '../effects/shell-syntax/bash-parser.js';
import type { ShellParse } from './shell-review.js';
import {
  DEFAULT_GUARDED_COMMANDS,
  decideInput,
  findRejectedCharacter,
  normalizeNewlines,
  type InputPolicy,
  type InputRequest,
  type InputTargetFacts,
} from './input.js';
import { commandName, summarizeForeground, type PaneProcess, type PaneProcessFacts } from './foreground.js';

const POLICY: InputPolicy = {
  terminalInput: true,
  allowSendText: true,
  allowedPatterns: ['agent-*', 'root-literal', 'build[1]'],
  deniedPatterns: ['agent-prod*'],
  maxTextLength: 20,
  guardedCommands: DEFAULT_GUARDED_COMMANDS,
  guardedCommandAllow: [{ session: 'agent-ops', commands: ['ssh'] }],
  allowedForegroundCommands: null,
  runAllowedShells: ['bash', 'zsh', 'sh', 'dash'],
};
const FACTS: InputTargetFacts = { sessionName: 'agent-1', readable: true, currentCommand: 'bash', inCopyMode: false, processes: { source: 'tmux', command: 'bash' } };
const TEXT = (text: string): InputRequest => ({ kind: 'text', text });
const KEYS = (keys: string[], confirmSensitive = false): InputRequest => ({ kind: 'keys', keys, confirmSensitive });

type Case = [label: string, policy: Partial<InputPolicy>, facts: Partial<InputTargetFacts>, request: InputRequest, expected: string];

const cases: Case[] = [
  ['plain text', {}, {}, TEXT('ls -la'), 'paste_text'],
  ['allowlisted keys', {}, {}, KEYS(['Up', 'Enter', '1', 'y', 'BTab']), 'press_keys'],
  ['global switch off', { terminalInput: false }, {}, TEXT('ls'), 'INPUT_DISABLED'],
  ['global switch off wins over everything', { terminalInput: false }, { sessionName: 'x-root', inCopyMode: true }, KEYS(['nope']), 'INPUT_DISABLED'],
  ['binding flag off', {}, { binding: { name: 'b', inputEnabled: false } }, TEXT('ls'), 'INPUT_DISABLED'],
  ['binding flag on', {}, { binding: { name: 'b', inputEnabled: true } }, TEXT('ls'), 'paste_text'],
  ['text turned off', { allowSendText: false }, {}, TEXT('ls'), 'INPUT_DISABLED'],
  ['keys still work when text is off', { allowSendText: false }, {}, KEYS(['Enter']), 'press_keys'],
  ['not in the input allowlist', {}, { sessionName: 'other' }, TEXT('ls'), 'INPUT_NOT_ALLOWED'],
  ['deny wins over allow', {}, { sessionName: 'agent-prod-1' }, TEXT('ls'), 'INPUT_NOT_ALLOWED'],
  ['deny wins over a grant', {}, { sessionName: 'agent-prod-1', grant: { input: true } }, TEXT('ls'), 'INPUT_NOT_ALLOWED'],
  ['a grant admits a name the patterns do not', {}, { sessionName: 'other', grant: { input: true } }, TEXT('ls'), 'paste_text'],
  ['a read-only grant does not', {}, { sessionName: 'other', grant: { input: false } }, TEXT('ls'), 'INPUT_NOT_ALLOWED'],
  ['sensitive name via glob', { allowedPatterns: ['*'] }, { sessionName: 'my-ssh-box' }, TEXT('ls'), 'INPUT_NOT_ALLOWED'],
  ['sensitive name via grant', {}, { sessionName: 'secret-x', grant: { input: true } }, TEXT('ls'), 'INPUT_NOT_ALLOWED'],
  ['sensitive name listed literally', {}, { sessionName: 'root-literal' }, TEXT('ls'), 'paste_text'],
  ['literal entry with glob characters', {}, { sessionName: 'build[1]' }, TEXT('ls'), 'paste_text'],
  ['not readable: no blind input', {}, { readable: false }, TEXT('ls'), 'INPUT_NOT_ALLOWED'],
  ['guarded command', {}, { currentCommand: 'ssh' }, TEXT('ls'), 'COMMAND_GUARDED'],
  ['guarded login-shell style name', {}, { currentCommand: '-sudo' }, KEYS(['Enter']), 'COMMAND_GUARDED'],
  ['guarded path and case', {}, { currentCommand: '/usr/bin/PSQL' }, TEXT('x'), 'COMMAND_GUARDED'],
  ['guarded command allowed for this session', {}, { sessionName: 'agent-ops', currentCommand: 'ssh' }, TEXT('ls'), 'paste_text'],
  ['allowance is per command', {}, { sessionName: 'agent-ops', currentCommand: 'sudo' }, TEXT('ls'), 'COMMAND_GUARDED'],
  ['allowance is per session', {}, { sessionName: 'agent-2', currentCommand: 'ssh' }, TEXT('ls'), 'COMMAND_GUARDED'],
  ['copy mode refuses text', {}, { inCopyMode: true }, TEXT('ls'), 'PANE_IN_COPY_MODE'],
  ['copy mode refuses keys', {}, { inCopyMode: true }, KEYS(['Enter']), 'PANE_IN_COPY_MODE'],
  ['q leaves copy mode', {}, { inCopyMode: true }, KEYS(['q']), 'exit_copy_mode'],
  ['q with more keys in copy mode', {}, { inCopyMode: true }, KEYS(['q', 'Enter']), 'PANE_IN_COPY_MODE'],
  ['q outside copy mode', {}, {}, KEYS(['q']), 'KEY_NOT_ALLOWED'],
  ['copy mode before length', {}, { inCopyMode: true }, TEXT('x'.repeat(100)), 'PANE_IN_COPY_MODE'],
  ['too long', {}, {}, TEXT('x'.repeat(21)), 'TEXT_TOO_LONG'],
  ['exactly the limit', {}, {}, TEXT('x'.repeat(20)), 'paste_text'],
  ['limit counts characters, not UTF-16 units', {}, {}, TEXT('😀'.repeat(20)), 'paste_text'],
  ['length before control check', {}, {}, TEXT('\x1b'.repeat(21)), 'TEXT_TOO_LONG'],
  ['bracketed-paste end', {}, {}, TEXT('a\x1b[201~b'), 'TEXT_REJECTED'],
  ['escape', {}, {}, TEXT('\x1b'), 'TEXT_REJECTED'],
  ['lone carriage return', {}, {}, TEXT('a\rb'), 'TEXT_REJECTED'],
  ['NUL', {}, {}, TEXT('a\x00'), 'TEXT_REJECTED'],
  ['DEL', {}, {}, TEXT('a\x7f'), 'TEXT_REJECTED'],
  ['C1 CSI', {}, {}, TEXT('a\u009b2J'), 'TEXT_REJECTED'],
  ['lone surrogate', {}, {}, TEXT('a\ud800b'), 'TEXT_REJECTED'],
  ['newline and tab are fine', {}, {}, TEXT('a\n\tb'), 'paste_text'],
  // Issue 45: what a reviewer sees is not what runs.
  ['right-to-left override', {}, {}, TEXT('rm -rf \u202e/ svd'), 'TEXT_REJECTED'],
  ['zero-width space', {}, {}, TEXT('r\u200bm -rf /'), 'TEXT_REJECTED'],
  ['byte order mark', {}, {}, TEXT('\ufeffls'), 'TEXT_REJECTED'],
  ['bidi isolate', {}, {}, TEXT('a\u2066b'), 'TEXT_REJECTED'],
  ['invisible characters when the operator allows them', { allowInvisibleCharacters: true }, {}, TEXT('r\u200bm'), 'paste_text'],
  ['right-to-left text itself is fine', {}, {}, TEXT('שלום עולם'), 'paste_text'],
  ['CRLF is a newline', {}, {}, TEXT('a\r\nb'), 'paste_text'],
  ['unknown key', {}, {}, KEYS(['Enter', 'F1']), 'KEY_NOT_ALLOWED'],
  ['key names are case-sensitive', {}, {}, KEYS(['enter']), 'KEY_NOT_ALLOWED'],
  ['no key text injection', {}, {}, KEYS(['Enter;', 'kill-server']), 'KEY_NOT_ALLOWED'],
  ['C-c needs confirmation', {}, {}, KEYS(['C-c']), 'CONFIRMATION_REQUIRED'],
  ['C-d needs confirmation', {}, {}, KEYS(['Up', 'C-d']), 'CONFIRMATION_REQUIRED'],
  ['C-c confirmed', {}, {}, KEYS(['C-c'], true), 'press_keys'],
  ['unknown key before confirmation', {}, {}, KEYS(['C-c', 'F1']), 'KEY_NOT_ALLOWED'],
  ['C-l and C-u need no confirmation', {}, {}, KEYS(['C-l', 'C-u']), 'press_keys'],
];

describe('decideInput', () => {
  it.each(cases)('%s', (_label, policy, facts, request, expected) => {
    const decision = decideInput({ ...POLICY, ...policy }, { ...FACTS, ...facts }, request);
    expect(decision.allowed ? decision.action : decision.code).toBe(expected);
  });

  it('sends the allowlist constant, never the caller string', () => {
    const decision = decideInput(POLICY, FACTS, KEYS(['Enter', 'C-c'], true));
    if (!decision.allowed || decision.action !== 'press_keys') throw new Error('expected keys');
    for (const key of decision.keys) expect(ALLOWED_KEYS).toContain(key);
  });

  it('names an invisible character and the setting that allows it', () => {
    const decision = decideInput(POLICY, FACTS, TEXT('ab\u202ec'));
    expect(decision).toMatchObject({ allowed: false, code: 'TEXT_REJECTED' });
    expect(!decision.allowed && decision.message).toMatch(/character 3 is U\+202E.*input_policy\.allow_invisible_characters/);
  });

  it('normalises CRLF and says so; a lone CR is refused with its position', () => {
    const ok = decideInput(POLICY, FACTS, TEXT('a\r\nb'));
    expect(ok).toEqual({ allowed: true, action: 'paste_text', text: 'a\nb', crlfNormalized: true });
    const bad = decideInput(POLICY, FACTS, TEXT('ab\rc'));
    expect(bad.allowed).toBe(false);
    if (!bad.allowed) expect(bad.message).toMatch(/^character 3 is U\+000D \(CR\)/);
  });

  it('names the control character and its position in characters', () => {
    const bad = decideInput(POLICY, FACTS, TEXT('😀x\x1b[201~'));
    if (bad.allowed) throw new Error('expected a refusal');
    expect(bad.message).toMatch(/^character 3 is U\+001B \(ESC\)/);
    expect(bad.message).toMatch(/nothing was sent/);
  });

  it('never reveals anything but the policy in messages', () => {
    const bad = decideInput(POLICY, { ...FACTS, sessionName: 'other' }, TEXT('secret text'));
    if (bad.allowed) throw new Error('expected a refusal');
    expect(bad.message).not.toContain('secret text');
  });
});

describe('helpers', () => {
  it('commandName strips login dash, path, case and a deleted marker', () => {
    expect(commandName('-bash')).toBe('bash');
    expect(commandName('/usr/bin/SSH')).toBe('ssh');
    expect(commandName('/usr/bin/ssh (deleted)')).toBe('ssh');
    expect(commandName('')).toBe('');
  });

  it('normalizeNewlines only touches CRLF pairs', () => {
    expect(normalizeNewlines('a\r\n\r\nb\r')).toEqual({ text: 'a\n\nb\r', crlfNormalized: true });
    expect(normalizeNewlines('a\nb')).toEqual({ text: 'a\nb', crlfNormalized: false });
  });

  it('findRejectedCharacter accepts unicode, tabs and newlines', () => {
    expect(findRejectedCharacter('héllo\twörld\n日本語 ✓ 😀')).toBeNull();
    expect(findRejectedCharacter('\u0085')).toEqual({ position: 1, codePoint: 0x85 });
  });
});

describe('the whole process tree', () => {
  // A pane whose process 100 is a shell; `fg` is the foreground process group.
  const proc = (pid: number, ppid: number, names: { exe?: string | null; comm: string; argv0?: string | null }, foreground: boolean): PaneProcess => ({
    pid,
    ppid,
    foreground,
    exe: names.exe === undefined ? names.comm : names.exe,
    comm: names.comm,
    argv0: names.argv0 === undefined ? names.comm : names.argv0,
  });
  const shell = (fg: boolean) => proc(100, 1, { comm: 'bash', argv0: '-bash' }, fg);
  const tree = (foregroundGroup: number, ...rest: PaneProcess[]): PaneProcessFacts => ({ source: 'proc', panePid: 100, foregroundGroup, processes: [shell(foregroundGroup === 100), ...rest] });
  const on = (processes: PaneProcessFacts, currentCommand = 'bash'): InputTargetFacts => ({ ...FACTS, currentCommand, processes });
  const CLAUDE = proc(200, 100, { exe: 'node', comm: 'claude', argv0: 'claude' }, true);

  type TreeCase = [label: string, policy: Partial<InputPolicy>, facts: InputTargetFacts, expected: string];
  const treeCases: TreeCase[] = [
    ['a shell at its prompt', {}, on(tree(100)), 'paste_text'],
    ['exec -a notssh ssh: exe and comm still say ssh', {}, on(tree(200, proc(200, 100, { comm: 'ssh', argv0: 'notssh' }, true)), 'notssh'), 'COMMAND_GUARDED'],
    ['cat | ssh: cat leads the group', {}, on(tree(200, proc(200, 100, { comm: 'cat' }, true), proc(201, 100, { comm: 'ssh' }, true)), 'cat'), 'COMMAND_GUARDED'],
    ["bash -c 'ssh h; true': ssh below a shell", {}, on(tree(200, proc(200, 100, { comm: 'bash' }, true), proc(201, 200, { comm: 'ssh' }, true))), 'COMMAND_GUARDED'],
    ['script -qc ssh: ssh on another terminal, below the pane', {}, on(tree(200, proc(200, 100, { comm: 'script' }, true), proc(201, 200, { comm: 'ssh' }, false)), 'script'), 'COMMAND_GUARDED'],
    ['a python subprocess', {}, on(tree(200, proc(200, 100, { exe: 'python3.11', comm: 'python3' }, true), proc(201, 200, { comm: 'ssh' }, true)), 'python3'), 'COMMAND_GUARDED'],
    ['a script named ssh (exe is its interpreter)', {}, on(tree(200, proc(200, 100, { exe: 'dash', comm: 'ssh', argv0: 'sh' }, true)), 'sh'), 'COMMAND_GUARDED'],
    ['a background job counts (fg is one keystroke away)', {}, on(tree(100, proc(200, 100, { comm: 'ssh' }, false))), 'COMMAND_GUARDED'],
    ['sudo: exe unreadable, comm still readable', {}, on(tree(200, proc(200, 100, { exe: null, comm: 'sudo' }, true)), 'sudo'), 'COMMAND_GUARDED'],
    ['tmux is guarded by default', {}, on(tree(200, proc(200, 100, { comm: 'tmux' }, true)), 'tmux'), 'COMMAND_GUARDED'],
    ['kubectl is guarded by default', {}, on(tree(200, proc(200, 100, { comm: 'kubectl' }, true)), 'kubectl'), 'COMMAND_GUARDED'],
    ['comm cut to 15 bytes still matches', { guardedCommands: ['averyveryverylongtool'] }, on(tree(200, proc(200, 100, { exe: null, comm: 'averyveryverylo', argv0: null }, true)), 'x'), 'COMMAND_GUARDED'],
    ['guarded_command_allow covers the tree too', {}, { ...on(tree(200, proc(200, 100, { comm: 'bash' }, true), proc(201, 200, { comm: 'ssh' }, true))), sessionName: 'agent-ops' }, 'paste_text'],
    ['an unreadable tree is refused', {}, on({ source: 'unreadable', reason: 'gone' }), 'COMMAND_GUARDED'],
    // input_policy.allowed_foreground_commands
    ['allowlist: claude (node, comm claude) is admitted', { allowedForegroundCommands: ['claude'] }, on(tree(200, CLAUDE), 'claude'), 'paste_text'],
    ['allowlist: by executable', { allowedForegroundCommands: ['node'] }, on(tree(200, CLAUDE), 'claude'), 'paste_text'],
    ['allowlist: a shell is refused', { allowedForegroundCommands: ['claude', 'node'] }, on(tree(100)), 'FOREGROUND_NOT_ALLOWED'],
    ['allowlist: exec -a claude bash is still bash', { allowedForegroundCommands: ['claude'] }, on(tree(200, proc(200, 100, { comm: 'bash', argv0: 'claude' }, true)), 'claude'), 'FOREGROUND_NOT_ALLOWED'],
    ['allowlist: argv[0] alone never admits', { allowedForegroundCommands: ['claude'] }, on(tree(200, proc(200, 100, { exe: 'python3', comm: 'python3', argv0: 'claude' }, true)), 'claude'), 'FOREGROUND_NOT_ALLOWED'],
    ['allowlist: a listed shell is admitted', { allowedForegroundCommands: ['bash'] }, on(tree(100)), 'paste_text'],
    ['allowlist: nothing in the foreground', { allowedForegroundCommands: ['claude'] }, on(tree(-1)), 'FOREGROUND_NOT_ALLOWED'],
    ['allowlist without /proc: tmux\'s command', { allowedForegroundCommands: ['claude'] }, on({ source: 'tmux', command: 'claude' }, 'claude'), 'paste_text'],
    ['allowlist without /proc: a shell', { allowedForegroundCommands: ['claude'] }, on({ source: 'tmux', command: '-zsh' }, '-zsh'), 'FOREGROUND_NOT_ALLOWED'],
    ['guarded comes before the allowlist', { allowedForegroundCommands: ['claude'] }, on(tree(200, CLAUDE, proc(201, 200, { comm: 'ssh' }, true)), 'claude'), 'COMMAND_GUARDED'],
  ];

  it.each(treeCases)('%s', (_label, policy, facts, expected) => {
    const decision = decideInput({ ...POLICY, ...policy }, facts, TEXT('ls'));
    expect(decision.allowed ? decision.action : decision.code).toBe(expected);
  });

  it('the refusal names the program and the config key, nothing else', () => {
    const decision = decideInput({ ...POLICY, allowedForegroundCommands: ['claude'] }, on(tree(100)), TEXT('secret text'));
    if (decision.allowed) throw new Error('expected a refusal');
    expect(decision.message).toBe('the pane\'s foreground program is "bash" (a shell), which input_policy.allowed_foreground_commands does not list');
  });

  it.each([
    ['a shell at its prompt', tree(100), { program: 'bash', isShell: true }],
    ['claude in the foreground', tree(200, CLAUDE), { program: 'node', isShell: false }],
    ['exec -a claude zsh', tree(200, proc(200, 100, { comm: 'zsh', argv0: 'claude' }, true)), { program: 'zsh', isShell: true }],
    ['leader gone: the topmost member', tree(300, proc(301, 1, { comm: 'fish' }, true)), { program: 'fish', isShell: true }],
    ['no /proc: tmux says -bash', { source: 'tmux', command: '-bash' } as const, { program: 'bash', isShell: true }],
    ['unreadable', { source: 'unreadable', reason: 'x' } as const, { program: null, isShell: false }],
  ])('summarizeForeground: %s', (_label, facts, expected) => {
    expect(summarizeForeground(facts)).toEqual(expected);
  });
});

describe('a command for terminal_run', () => {
  const proc = (pid: number, ppid: number, comm: string, foreground: boolean, exe: string = comm): PaneProcess => ({ pid, ppid, foreground, exe, comm, argv0: comm });
  const at = (processes: PaneProcess[], foregroundGroup = 100): InputTargetFacts => ({
    ...FACTS,
    processes: { source: 'proc', panePid: 100, foregroundGroup, processes },
  });
  let parse: ShellParse;
  beforeAll(async () => {
    parse = await createBashParserLoader()();
  });
  const RUN = (text: string): InputRequest => ({ kind: 'command', text, shell: { parse } });
  const BASH = proc(100, 1, 'bash', true);

  type RunCase = [label: string, policy: Partial<InputPolicy>, facts: InputTargetFacts, text: string, expected: string];
  const runCases: RunCase[] = [
    ['bash at its prompt', {}, at([BASH]), 'make test', 'run_command'],
    ['sh that is dash', {}, at([proc(100, 1, 'sh', true, 'dash')]), 'ls', 'run_command'],
    ['a background job does not make it busy', {}, at([BASH, proc(200, 100, 'sleep', false)]), 'ls', 'run_command'],
    ['a shell not in run_allowed_shells', { runAllowedShells: ['zsh'] }, at([BASH]), 'ls', 'FOREGROUND_NOT_ALLOWED'],
    ['fish is never a run shell', {}, at([proc(100, 1, 'fish', true)]), 'ls', 'FOREGROUND_NOT_ALLOWED'],
    ['a program in the foreground', {}, at([proc(100, 1, 'bash', false), proc(200, 100, 'python3', true)], 200), 'ls', 'FOREGROUND_NOT_ALLOWED'],
    ['argv0 alone does not admit', {}, at([{ ...proc(100, 1, 'node', true), argv0: 'bash' }]), 'ls', 'FOREGROUND_NOT_ALLOWED'],
    ['a subshell busy running a command', {}, at([proc(100, 1, 'dash', false), proc(150, 100, 'dash', true), proc(151, 150, 'sleep', true)], 150), 'ls', 'FOREGROUND_NOT_ALLOWED'],
    ['a newline', {}, at([BASH]), 'ls\nrm -rf x', 'TEXT_REJECTED'],
    ['CRLF is a newline too', {}, at([BASH]), 'ls\r\nx', 'TEXT_REJECTED'],
    ['an escape', {}, at([BASH]), 'echo \x1b[31m', 'TEXT_REJECTED'],
    ['too long', {}, at([BASH]), 'x'.repeat(21), 'TEXT_TOO_LONG'],
    ['names a guarded command', {}, at([BASH]), 'ssh host', 'COMMAND_GUARDED'],
    ['behind a pipe and a path', {}, at([BASH]), 'x|/usr/bin/sudo y', 'COMMAND_GUARDED'],
    ['inside $()', {}, at([BASH]), 'a $(tmux ls)', 'COMMAND_GUARDED'],
    // Quotes and backslashes inside a word are removed by the shell before it runs the name
    // (issue 45: `s''sh prod-host` passed as harmless words).
    ['a name split by empty quotes', {}, at([BASH]), "s''sh prod-host", 'COMMAND_GUARDED'],
    ['a name split by double quotes', {}, at([BASH]), 'ss""h host', 'COMMAND_GUARDED'],
    ['a name with a backslash', {}, at([BASH]), 's\\sh prod-host', 'COMMAND_GUARDED'],
    ['a quoted part of a name behind a pipe', {}, at([BASH]), 'x | "ps"ql db', 'COMMAND_GUARDED'],
    ['allowed for this session', {}, { ...at([BASH]), sessionName: 'agent-ops' }, 'ssh h', 'run_command'],
    ['a word that only contains a guarded name', {}, at([BASH]), 'git log --grep=ssh', 'run_command'],
    // The parse tells a program from an argument: the word check refused these.
    ['a guarded name as an argument', {}, at([BASH]), 'man ssh', 'run_command'],
    ['a name the shell computes', {}, at([BASH]), '${a}h prod-host', 'COMMAND_GUARDED'],
    ['input off', { terminalInput: false }, at([BASH]), 'ls', 'INPUT_DISABLED'],
    ['text off', { allowSendText: false }, at([BASH]), 'ls', 'INPUT_DISABLED'],
    ['copy mode', {}, { ...at([BASH]), inCopyMode: true }, 'ls', 'PANE_IN_COPY_MODE'],
    ['guarded in the process tree', {}, at([BASH, proc(200, 100, 'ssh', false)]), 'ls', 'COMMAND_GUARDED'],
  ];
  it.each(runCases)('%s', (_label, policy, facts, text, expected) => {
    const d = decideInput({ ...POLICY, ...policy }, facts, RUN(text));
    expect(d.allowed ? d.action : d.code).toBe(expected);
  });

  it('names the shell and its pid, and points a refusal at terminal_send_task', () => {
    expect(decideInput(POLICY, at([BASH]), RUN('ls'))).toMatchObject({ action: 'run_command', shell: 'bash', shellPid: 100, text: 'ls' });
    const refused = decideInput(POLICY, at([proc(100, 1, 'python3', true)]), RUN('ls'));
    expect(refused.allowed ? '' : refused.message).toMatch(/terminal_send_task/);
  });
});
