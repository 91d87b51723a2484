// Guards the secret entry's one rule: an answer goes only to a credential program identified by its executable (never by a prompt on the screen, a script's name or argv[0]); shells, interpreters, scripts, binaries an agent could write and shared terminals are refused; ssh only at its own password prompt (terminal mode and wait), never connected.
import { describe, expect, it } from 'vitest';
import { DEFAULT_CREDENTIAL_PROGRAMS, judgeCredentialReader, listedProgram, type TerminalReadFacts } from './credential-reader.js';
import type { PaneProcess, PaneProcessFacts } from './foreground.js';

const shell: PaneProcess = { pid: 100, ppid: 1, foreground: false, exe: 'bash', comm: 'bash', argv0: '-bash', exePath: '/usr/bin/bash', uid: 1000, exeTrusted: true };
const proc = (p: Partial<PaneProcess> & { pid: number }): PaneProcess => ({ ppid: 100, foreground: true, exe: null, comm: '', argv0: null, uid: 1000, exeTrusted: true, ...p });
const tree = (processes: PaneProcess[], group = processes.find((p) => p.foreground)?.pid ?? 100): PaneProcessFacts => ({ source: 'proc', panePid: 100, foregroundGroup: group, processes, inputWait: 'reading' });
const judge = (facts: PaneProcessFacts) => judgeCredentialReader(facts, DEFAULT_CREDENTIAL_PROGRAMS);

describe('judgeCredentialReader', () => {
  it.each<[string, PaneProcess[], boolean, RegExp]>([
    ['sudo run by the user (root sees its executable)', [shell, proc({ pid: 101, exe: 'sudo', comm: 'sudo', argv0: 'sudo', exePath: '/usr/bin/sudo', uid: 0 })], true, /"\/usr\/bin\/sudo" is a credential program/],
    ['set-uid sudo whose executable is hidden (unprivileged broker)', [shell, proc({ pid: 101, exe: null, comm: 'sudo', exePath: null, uid: 0, exeTrusted: null })], true, /sudo/],
    ['ssh without facts of how it reads the terminal', [shell, proc({ pid: 101, exe: 'ssh', comm: 'ssh', exePath: '/usr/bin/ssh' })], false, /cannot be told whether "ssh" asks for its own password/],
    ['pinentry-curses under gpg', [shell, proc({ pid: 101, exe: 'gpg', comm: 'gpg', exePath: '/usr/bin/gpg' }), proc({ pid: 102, ppid: 101, exe: 'pinentry-curses', comm: 'pinentry-curses', exePath: '/usr/bin/pinentry-curses' })], true, /pinentry-curses/],
    ["the shell's own read -s (the staged prompt)", [{ ...shell, foreground: true }], false, /shell or interpreter/],
    ['a script named sudo (its executable is bash)', [shell, proc({ pid: 101, exe: 'bash', comm: 'sudo', argv0: '/tmp/sudo', exePath: '/usr/bin/bash' })], false, /shell or interpreter/],
    ['exec -a sudo bash', [shell, proc({ pid: 101, exe: 'bash', comm: 'bash', argv0: 'sudo', exePath: '/usr/bin/bash' })], false, /shell or interpreter/],
    ['python getpass', [shell, proc({ pid: 101, exe: 'python3.11', comm: 'python3', exePath: '/usr/bin/python3.11' })], false, /shell or interpreter/],
    ['a binary copied to /tmp under a credential name', [shell, proc({ pid: 101, exe: 'sudo', comm: 'sudo', exePath: '/tmp/x/sudo', exeTrusted: false })], false, /system directory/],
    ['a user-writable binary in a system directory', [shell, proc({ pid: 101, exe: 'ssh', comm: 'ssh', exePath: '/usr/local/bin/ssh', exeTrusted: false })], false, /only root can write/],
    ['an unlisted program', [shell, proc({ pid: 101, exe: 'cat', comm: 'cat', exePath: '/usr/bin/cat' })], false, /not in human_input.credential_programs/],
    ['sudo after it authenticated, running cat', [shell, proc({ pid: 101, exe: 'sudo', comm: 'sudo', exePath: '/usr/bin/sudo', uid: 0 }), proc({ pid: 102, ppid: 101, exe: 'cat', comm: 'cat', exePath: '/usr/bin/cat', uid: 0 })], false, /"\/usr\/bin\/cat"/],
    ['two programs share the terminal', [shell, proc({ pid: 101, exe: 'sudo', comm: 'sudo', exePath: '/usr/bin/sudo' }), proc({ pid: 102, exe: 'tee', comm: 'tee', exePath: '/usr/bin/tee' })], false, /2 programs share the terminal/],
    ['a hidden executable running as the pane user', [shell, proc({ pid: 101, exe: null, comm: 'sudo', exePath: null, uid: 1000, exeTrusted: null })], false, /could not be read/],
  ])('%s', (_name, processes, admitted, reason) => {
    const v = judge(tree(processes));
    expect(v.admitted).toBe(admitted);
    expect(v.reason).toMatch(reason);
  });

  it('names the reader and its parent chain from the pane process down', () => {
    const v = judge(tree([shell, proc({ pid: 101, exe: 'gpg', comm: 'gpg', exePath: '/usr/bin/gpg' }), proc({ pid: 102, ppid: 101, exe: 'pinentry-curses', comm: 'pinentry-curses', exePath: '/usr/bin/pinentry-curses' })]));
    expect(v.readers.map((r) => r.exePath)).toEqual(['/usr/bin/pinentry-curses']);
    expect(v.chain.map((r) => r.name)).toEqual(['bash', 'gpg', 'pinentry-curses']);
  });

  it('refuses without a process tree', () => {
    expect(judge({ source: 'tmux', command: 'sudo' }).admitted).toBe(false);
    expect(judge({ source: 'unreadable', reason: 'gone' }).reason).toContain('gone');
  });

  it('matches names exactly, and a trailing * as a prefix', () => {
    expect(listedProgram('pinentry-gnome3', ['pinentry*'])).toBe(true);
    expect(listedProgram('sudoedit', ['sudo'])).toBe(false);
    expect(listedProgram('/usr/bin/ssh', ['ssh'])).toBe(true);
  });
});

describe('ssh qualifies only at its own password prompt (the terminal mode and its wait, not the screen)', () => {
  const ssh = [shell, proc({ pid: 101, exe: 'ssh', comm: 'ssh', exePath: '/usr/bin/ssh' })];
  const PROMPT = { echo: false, canonical: true };
  it.each<[string, TerminalReadFacts, boolean, RegExp]>([
    ["ssh's passphrase prompt: echo off, canonical, blocked reading the terminal", { mode: PROMPT, wait: 'terminal' }, true, /credential program/],
    ['connected with a remote terminal: raw mode (a remote read -s changes only the remote one)', { mode: { echo: false, canonical: false }, wait: 'poll' }, false, /connected: the terminal is in raw mode/],
    ['connected without one after `stty -echo`: the mode of a prompt, but ssh polls its connection', { mode: PROMPT, wait: 'poll' }, false, /waiting on its connection/],
    ['a question that echoes (a host key yes/no)', { mode: { echo: true, canonical: true }, wait: 'terminal' }, false, /echoes what is typed/],
    ['the mode could not be read', { mode: null, wait: 'terminal' }, false, /cannot be told/],
    ["ssh's wait could not be read", { mode: PROMPT, wait: null }, false, /cannot be told/],
  ])('%s', (_name, terminal, admitted, reason) => {
    const v = judgeCredentialReader(tree(ssh), DEFAULT_CREDENTIAL_PROGRAMS, terminal);
    expect([v.admitted, v.reason]).toEqual([admitted, expect.stringMatching(reason)]);
  });

  it('asks nothing of other credential programs (sudo in raw mode still qualifies)', () => {
    const sudo = [shell, proc({ pid: 101, exe: 'sudo', comm: 'sudo', exePath: '/usr/bin/sudo', uid: 0 })];
    expect(judgeCredentialReader(tree(sudo), DEFAULT_CREDENTIAL_PROGRAMS, { mode: { echo: false, canonical: false }, wait: 'poll' }).admitted).toBe(true);
  });
});
