/**
 * What runs in a pane, as the input gates see it: facts about the pane's process tree
 * (read from /proc by effects/proc/process-tree.ts) and the pure questions asked of them —
 * which program holds the terminal, whether that is a shell, whether a guarded command runs
 * anywhere in the tree.
 *
 * tmux's `#{pane_current_command}` is argv[0] of the foreground process group's leader:
 * `exec -a notssh ssh`, `cat | ssh` (cat leads), `bash -c 'ssh h; true'`, `script -qc ssh`
 * (a new terminal) and a Python subprocess all hide ssh from it. So every process of the
 * pane counts, under each of its names: the executable's basename (/proc/<pid>/exe, which
 * `exec -a` cannot change), the kernel's command name (/proc/<pid>/comm: the file name that
 * was executed, even for a script or a symlink) and argv[0].
 *
 * Not covered, by design: a renamed copy of a binary (`cp /usr/bin/ssh /tmp/x`) carries
 * none of the guarded names. The gate keeps agents from typing into credentials and other
 * machines by accident or through a wrapper; it is not a sandbox against a local user.
 */

/** One process of the pane: the pane's own process, every descendant, and every member of
 * the terminal's foreground process group. */
export interface PaneProcess {
  readonly pid: number;
  readonly ppid: number;
  /** A member of the pane terminal's foreground process group (what reads typed input). */
  readonly foreground: boolean;
  /** Basename of /proc/<pid>/exe; null when unreadable (another user's process, e.g. sudo). */
  readonly exe: string | null;
  /** /proc/<pid>/comm: the executed file's name, cut to 15 bytes by the kernel. */
  readonly comm: string;
  /** Basename of argv[0]; null when empty (a zombie). */
  readonly argv0: string | null;
  /** The executable's full path (/proc/<pid>/exe); null when unreadable; absent when the
   * reader does not collect it. The secret entry identifies a credential program by it
   * (policy/credential-reader.ts). */
  readonly exePath?: string | null;
  /** The effective user id the process runs as; null or absent when unknown. */
  readonly uid?: number | null;
  /** The executable file is owned by root and writable by nobody else (so no unprivileged
   * agent put it there); null or absent when it could not be checked. */
  readonly exeTrusted?: boolean | null;
}

export type PaneProcessFacts =
  /** Read from /proc at the moment of asking. */
  | {
      readonly source: 'proc';
      readonly panePid: number;
      readonly foregroundGroup: number;
      readonly processes: readonly PaneProcess[];
      /** Whether the foreground group is blocked waiting for input (process-tree.ts);
       * absent means not read. */
      readonly inputWait?: 'reading' | 'busy' | 'unknown';
    }
  /** No /proc on this system (not Linux): tmux's foreground command is all there is. */
  | { readonly source: 'tmux'; readonly command: string }
  /** /proc exists but the pane's processes could not be read (gone, hidden, too many):
   * the input gates refuse rather than guess. */
  | { readonly source: 'unreadable'; readonly reason: string };

/** Programs that read a line and run it as a command: input into one is operator-level
 * access (it can run `tmux` and reach every session on the server). */
export const SHELL_NAMES: readonly string[] = [
  'sh', 'ash', 'bash', 'rbash', 'dash', 'zsh', 'ksh', 'mksh', 'oksh', 'pdksh', 'yash', 'csh', 'tcsh',
  'fish', 'nu', 'elvish', 'xonsh', 'pwsh', 'powershell', 'busybox', 'ion', 'rc', 'es', 'oil', 'osh', 'ysh',
];
const SHELLS: ReadonlySet<string> = new Set(SHELL_NAMES);

/** The kernel keeps 15 bytes of a command name (TASK_COMM_LEN 16). */
const COMM_MAX = 15;

/** `-bash` (login shell), `/usr/bin/ssh` and `SSH` name the same command as `ssh`; a
 * deleted executable's link ends in ` (deleted)`. */
export function commandName(raw: string): string {
  const trimmed = raw.trim().replace(/ \(deleted\)$/, '').replace(/^-/, '');
  return trimmed.slice(trimmed.lastIndexOf('/') + 1).toLowerCase();
}

/** Every name a process goes by, normalised; empty names dropped. */
export function namesOf(p: PaneProcess): string[] {
  const names = [p.exe, p.comm, p.argv0].filter((n): n is string => n !== null).map(commandName).filter((n) => n !== '');
  return [...new Set(names)];
}

/** Whether `name` (one of a process's names) is the command `command` — allowing for the
 * kernel's 15-byte cut of comm. */
export function nameIs(name: string, command: string): boolean {
  const wanted = commandName(command);
  return name === wanted || (name.length === COMM_MAX && wanted.length > COMM_MAX && wanted.startsWith(name));
}

export function isShellName(name: string): boolean {
  return SHELLS.has(commandName(name));
}

/** The program holding the terminal: the foreground process group's leader, or (when the
 * leader has exited) the group's topmost member. Null when nothing is in the foreground. */
export function foregroundLeader(processes: readonly PaneProcess[], foregroundGroup: number): PaneProcess | null {
  const members = processes.filter((p) => p.foreground);
  const leader = members.find((p) => p.pid === foregroundGroup);
  if (leader) return leader;
  const pids = new Set(members.map((p) => p.pid));
  return members.find((p) => !pids.has(p.ppid)) ?? null;
}

export interface ForegroundSummary {
  /** The foreground program's name as shown to a caller: its executable when known. */
  readonly program: string | null;
  /** The foreground program is a shell (under any of its names). */
  readonly isShell: boolean;
}

export function summarizeForeground(facts: PaneProcessFacts): ForegroundSummary {
  if (facts.source === 'tmux') {
    const name = commandName(facts.command);
    return { program: name === '' ? null : name, isShell: isShellName(name) };
  }
  if (facts.source === 'unreadable') return { program: null, isShell: false };
  const leader = foregroundLeader(facts.processes, facts.foregroundGroup);
  if (!leader) return { program: null, isShell: false };
  const names = namesOf(leader);
  return { program: names[0] ?? null, isShell: names.some(isShellName) };
}

/** Every command name running in the pane (each process under each of its names). */
export function commandsInPane(facts: Exclude<PaneProcessFacts, { source: 'unreadable' }>): string[] {
  if (facts.source === 'tmux') return facts.command.trim() === '' ? [] : [commandName(facts.command)];
  return [...new Set(facts.processes.flatMap(namesOf))];
}

/** The first guarded command running anywhere in the pane that `allowed` (the
 * session's guarded_command_allow entries) does not cover; null when there is none. */
export function firstGuardedCommand(
  facts: Exclude<PaneProcessFacts, { source: 'unreadable' }>,
  guarded: readonly string[],
  allowed: readonly string[],
): string | null {
  for (const name of commandsInPane(facts)) {
    const hit = guarded.find((g) => nameIs(name, g));
    if (hit !== undefined && !allowed.some((a) => nameIs(name, a))) return commandName(hit);
  }
  return null;
}

/**
 * May input go to this pane's foreground program under
 * `input_policy.allowed_foreground_commands`? Its executable or kernel command name must
 * be listed (argv[0] alone never admits: `exec -a claude bash` changes only argv[0]), and
 * none of its names may be an unlisted shell (that same process still has comm `bash`).
 */
export function foregroundAdmitted(facts: Exclude<PaneProcessFacts, { source: 'unreadable' }>, allowed: readonly string[]): boolean {
  const listed = (n: string) => allowed.some((a) => nameIs(n, a));
  let real: string[];
  let all: string[];
  if (facts.source === 'tmux') {
    real = all = facts.command.trim() === '' ? [] : [commandName(facts.command)];
  } else {
    const leader = foregroundLeader(facts.processes, facts.foregroundGroup);
    if (!leader) return false;
    all = namesOf(leader);
    real = [leader.exe, leader.comm].filter((n): n is string => n !== null).map(commandName);
  }
  return real.some(listed) && all.filter(isShellName).every(listed);
}
