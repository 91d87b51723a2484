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
 *    a script and `python3 -c 'getpass()'` are refused.
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

export function judgeCredentialReader(facts: PaneProcessFacts, programs: readonly string[]): CredentialReaderVerdict {
  const none = (reason: string): CredentialReaderVerdict => ({ admitted: false, reason, readers: [], chain: [] });
  if (facts.source === 'tmux') return none("the pane's process tree cannot be read on this system, so the program waiting cannot be identified");
  if (facts.source === 'unreadable') return none(`the pane's processes could not be inspected (${facts.reason}), so the program waiting cannot be identified`);
  const members = facts.processes.filter((p) => p.foreground);
  const groupPids = new Set(members.map((p) => p.pid));
  const leaves = members.filter((p) => !members.some((q) => q.ppid === p.pid && groupPids.has(q.pid)));
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
  return { admitted: true, reason: `${JSON.stringify(reader.exePath ?? reader.name)} is a credential program (human_input.credential_programs)`, readers, chain };
}
