/**
 * Which program would read the dashboard's secret entry, and may it? Pure: a function of
 * the pane's process tree (read at the moment of asking, effects/proc/process-tree.ts) and
 * `human_input.credential_programs`.
 *
 * The screen proves nothing: an agent that may type into a shell can print
 * `[sudo] password for root:` with `read -rs -p`, and the answer would land in a variable
 * the agent reads back. So the answer goes only to a configured credential reader (sudo,
 * ssh, gpg's pinentry, ...) identified by its executable, never by its name on screen:
 *
 *  - the reader is every leaf of the terminal's foreground process group (a member none of
 *    whose children is in the group): what holds the terminal and waits there. Every leaf
 *    must qualify (`sudo make | tee log` has two readers: refused);
 *  - a leaf qualifies when the basename of its executable (/proc/<pid>/exe, which neither
 *    `exec -a` nor a script's name changes) is a listed program, and the executable is a
 *    file no unprivileged agent could have put there: owned by root and writable by no one
 *    else (when that was read), in a system directory;
 *  - a leaf whose executable cannot be read (another user's process: a set-uid sudo seen
 *    by an unprivileged broker) qualifies when it runs as a user other than the pane's own
 *    process and its kernel command name is listed: only a set-uid program, started from a
 *    file root installed, changes user without a password already given;
 *  - a shell or interpreter never qualifies, whatever it is named: a shell's `read -s`,
 *    a script and `python3 -c 'getpass()'` are refused;
 *  - a program that carries a remote session (ssh) qualifies only at its own password or
 *    passphrase prompt: the terminal in the mode a password prompt sets (echo off,
 *    canonical) and the program blocked reading the terminal. A connected ssh holds the
 *    terminal in raw mode and waits in poll on its connection, so a remote `read -s`
 *    behind it is refused (effects/proc/terminal-read.ts reads both facts).
 */
import { commandName, namesOf, type PaneProcess, type PaneProcessFacts } from './foreground.js';

/** Programs that ask for a password, passphrase or PIN on the terminal (the default of
 * `human_input.credential_programs`). A trailing `*` matches any suffix (pinentry-curses). */
export const DEFAULT_CREDENTIAL_PROGRAMS: readonly string[] = [
  'sudo', 'su', 'doas', 'pkexec', 'login', 'passwd', 'chsh', 'chfn',
  'ssh', 'sftp', 'scp', 'ssh-add', 'ssh-keygen',
  'gpg', 'gpg2', 'pinentry*', 'age', 'openssl', 'cryptsetup',
  'mysql', 'mariadb', 'psql', 'pg_dump', 'mongosh', 'redis-cli', 'kinit', 'htpasswd',
];

/** Directories of executables installed by the system's package manager (or an admin);
 * the executable of a credential program lives in one of these. */
const SYSTEM_EXE_DIRS: readonly string[] = ['/usr/bin/', '/bin/', '/usr/sbin/', '/sbin/', '/usr/local/bin/', '/usr/local/sbin/', '/usr/libexec/', '/usr/lib/', '/opt/'];

/** Names that read a line and run or evaluate it: never a credential reader. */
const INTERPRETERS = /^(?:sh|ash|bash|rbash|dash|zsh|ksh|mksh|yash|csh|tcsh|fish|busybox|python[\d.]*|pypy[\d.]*|perl[\d.]*|ruby[\d.]*|node|nodejs|deno|bun|php[\d.]*|lua[\d.]*|tclsh[\d.]*|expect|awk|gawk|mawk|env)$/;

export interface TerminalMode {
  readonly echo: boolean;
  readonly canonical: boolean;
}

/** `terminal`: blocked reading a terminal; `poll`: waiting in poll/select/epoll (on several
 * descriptors: a connection and the terminal); `other`: anything else; null: not readable. */
export type TerminalWait = 'terminal' | 'poll' | 'other' | null;

/** How the single reader reads the terminal now (effects/proc/terminal-read.ts). */
export interface TerminalReadFacts {
  /** null when the terminal's mode could not be read. */
  readonly mode: TerminalMode | null;
  readonly wait: TerminalWait;
}

/** Programs that, once connected, carry what is typed to another machine: a remote shell's
 * `read -s` behind them would get the answer. They qualify only at their own password
 * prompt, told by the kernel's facts (terminalRefusal), never by the screen. */
export const REMOTE_SESSION_PROGRAMS: readonly string[] = ['ssh', 'slogin'];

/** Why `name`'s terminal read is not its own password prompt; null when it is. */
function terminalRefusal(name: string, terminal: TerminalReadFacts | undefined): string | null {
  const shown = JSON.stringify(name);
  if (terminal === undefined || terminal.mode === null || terminal.wait === null) {
    return `it cannot be told whether ${shown} asks for its own password or carries a connected session (the terminal's mode or ${shown}'s wait could not be read)`;
  }
  if (!terminal.mode.canonical) return `${shown} is connected: the terminal is in raw mode for a remote session, not at ${shown}'s own password prompt`;
  if (terminal.mode.echo) return `the terminal echoes what is typed, so ${shown} is not at a password prompt`;
  if (terminal.wait !== 'terminal') return `${shown} is waiting on its connection, not reading a password from the terminal`;
  return null;
}

/** The foreground group's leaves: what holds the terminal and waits there. */
export function foregroundLeaves(facts: Extract<PaneProcessFacts, { source: 'proc' }>): PaneProcess[] {
  const members = facts.processes.filter((p) => p.foreground);
  const groupPids = new Set(members.map((p) => p.pid));
  return members.filter((p) => !members.some((q) => q.ppid === p.pid && groupPids.has(q.pid)));
}

/** The single reader's judged name, when it is a remote-session program (its terminal
 * read is then needed: readTargetProcesses with the secret's facts). */
export function remoteSessionReader(facts: PaneProcessFacts): PaneProcess | null {
  if (facts.source !== 'proc') return null;
  const leaves = foregroundLeaves(facts);
  if (leaves.length !== 1) return null;
  const leaf = leaves[0] as PaneProcess;
  return listedProgram(factsOf(leaf).name, REMOTE_SESSION_PROGRAMS) ? leaf : null;
}

/** One process as the page shows it: the facts the decision was taken on. */
export interface ProgramFacts {
  readonly pid: number;
  /** The executable's full path; null when it could not be read. */
  readonly exePath: string | null;
  /** The name it is judged by: the executable's basename, else the kernel command name. */
  readonly name: string;
  readonly uid: number | null;
}

export interface CredentialReaderVerdict {
  readonly admitted: boolean;
  /** One line: why it is admitted or refused (safe to show: no pane content). */
  readonly reason: string;
  /** What reads the terminal (the foreground group's leaves); empty when unknown. */
  readonly readers: readonly ProgramFacts[];
  /** The first reader's parent chain, from the pane's own process down to it. */
  readonly chain: readonly ProgramFacts[];
}

function factsOf(p: PaneProcess): ProgramFacts {
  const exePath = p.exePath ?? null;
  const name = p.exe !== null ? commandName(p.exe) : commandName(p.comm);
  return { pid: p.pid, exePath, name, uid: p.uid ?? null };
}

/** `name` is one of `programs` (a trailing `*` is a prefix). */
export function listedProgram(name: string, programs: readonly string[]): boolean {
  const n = commandName(name);
  return programs.some((raw) => {
    const p = commandName(raw);
    return p.endsWith('*') ? n.startsWith(p.slice(0, -1)) : n === p;
  });
}

function inSystemDir(path: string): boolean {
  return SYSTEM_EXE_DIRS.some((d) => path.startsWith(d)) && !path.includes('/../') && !path.endsWith(' (deleted)');
}

/** Why `p` is not a credential reader; null when it is one. */
function refusalOf(p: PaneProcess, pane: PaneProcess | undefined, programs: readonly string[]): string | null {
  const facts = factsOf(p);
  const shown = facts.exePath ?? facts.name;
  if (namesOf(p).some((n) => INTERPRETERS.test(n))) {
    return `${JSON.stringify(shown)} is a shell or interpreter (a shell's read, a script), not a credential program`;
  }
  if (p.exePath !== undefined && p.exePath !== null) {
    if (!listedProgram(facts.name, programs)) return `${JSON.stringify(shown)} is not in human_input.credential_programs`;
    if (!inSystemDir(p.exePath)) return `${JSON.stringify(shown)} is not installed in a system directory`;
    if (p.exeTrusted === false) return `${JSON.stringify(shown)} is not a file only root can write`;
    return null;
  }
  // The executable is hidden from us: another user's process (a set-uid program).
  const paneUid = pane?.uid ?? null;
  const uid = p.uid ?? null;
  if (uid !== null && paneUid !== null && uid !== paneUid && listedProgram(p.comm, programs)) return null;
  return `the executable of ${JSON.stringify(facts.name)} (pid ${p.pid}) could not be read, so it cannot be identified`;
}

/** The parent chain of `p` inside the pane's processes, from the top down to `p`. */
function chainOf(processes: readonly PaneProcess[], p: PaneProcess): ProgramFacts[] {
  const byPid = new Map(processes.map((q) => [q.pid, q]));
  const chain: ProgramFacts[] = [];
  for (let at: PaneProcess | undefined = p; at !== undefined && chain.length < 32; at = byPid.get(at.ppid)) {
    chain.unshift(factsOf(at));
  }
  return chain;
}

export function judgeCredentialReader(facts: PaneProcessFacts, programs: readonly string[], terminal?: TerminalReadFacts): CredentialReaderVerdict {
  const none = (reason: string): CredentialReaderVerdict => ({ admitted: false, reason, readers: [], chain: [] });
  if (facts.source === 'tmux') return none("the pane's process tree cannot be read on this system, so the program waiting cannot be identified");
  if (facts.source === 'unreadable') return none(`the pane's processes could not be inspected (${facts.reason}), so the program waiting cannot be identified`);
  const leaves = foregroundLeaves(facts);
  if (leaves.length === 0) return none("nothing holds the pane's terminal");
  const pane = facts.processes.find((p) => p.pid === facts.panePid);
  const readers = leaves.map(factsOf);
  const chain = chainOf(facts.processes, leaves[0] as PaneProcess);
  if (leaves.length > 1) {
    return { admitted: false, reason: `${leaves.length} programs share the terminal (${readers.map((r) => r.name).join(', ')}): the one reading the answer cannot be told`, readers, chain };
  }
  const refusal = refusalOf(leaves[0] as PaneProcess, pane, programs);
  if (refusal !== null) return { admitted: false, reason: refusal, readers, chain };
  const reader = readers[0] as ProgramFacts;
  if (listedProgram(reader.name, REMOTE_SESSION_PROGRAMS)) {
    const remote = terminalRefusal(reader.name, terminal);
    if (remote !== null) return { admitted: false, reason: remote, readers, chain };
  }
  return { admitted: true, reason: `${JSON.stringify(reader.exePath ?? reader.name)} is a credential program (human_input.credential_programs)`, readers, chain };
}
