/**
 * A node's pane process tree, for the input gates (policy/foreground.ts), read on the node
 * over the node's multiplexed ssh connection: the same facts process-tree.ts reads from
 * this host's /proc, with the same meaning, so guarded commands, the foreground program
 * and "is it waiting for input" are judged on a node exactly as here.
 *
 * One fixed remote command, `sh -c <constant script>` (no client text ever reaches it;
 * ssh-argv.ts single-quotes every word after `--`), one ssh channel per read (each costs
 * a round trip and a session on the node), in the C locale:
 *
 *  1. `ps -A -L -o pid,lwp,ppid,pgid,tpgid,uid,stat,tty,wchan,comm` then `ps -A -o pid,args`.
 *     ps prints a control character in a name as `?`, so a process cannot forge a line;
 *     the one free-form column is last.
 *  2. `ls -l -b /proc/[0-9]*\/exe /proc/[0-9]*\/fd`, kept to the lines that matter (each
 *     process's executable, which `exec -a` cannot change, and every descriptor open on a
 *     `/dev/pts/<n>`): the processes that left the pane's session but still hold its pty
 *     (`setsid -f ssh host`) count as the pane's, as process-tree.ts finds them with
 *     /proc/<pid>/fd here. `-b` escapes a newline in a link's target, so a path cannot
 *     forge a line either. Another user's processes cannot be read (as here).
 *
 * A node that does not answer throws TMUX_UNAVAILABLE (the caller sees NODE_UNAVAILABLE);
 * a node without a usable `ps` answers `unreadable`, and the gates refuse.
 */
import { AppError } from '@terminal-mcp/contract';
import { execa } from 'execa';
import type { PaneProcess, PaneProcessFacts } from '../../policy/foreground.js';
import { INPUT_WAIT_RE, MAX_DETACHED_CANDIDATES, MAX_PANE_PROCESSES, MAX_THREADS_READ, readAfterExec } from '../proc/process-tree.js';
import { sshCommandArgs, type SshTarget } from './ssh-argv.js';

/** One ssh round trip over the master connection; a link that is gone fails sooner. */
export const REMOTE_PROCESS_READ_TIMEOUT_MS = 10_000;
/** Output bound of one read (a `ps -A -L` of a large host is a few hundred KB). */
const MAX_OUTPUT_BYTES = 16 * 1024 * 1024;
/** Threads listed on a node before it is refused as too large to inspect. */
const MAX_REMOTE_THREADS = 200_000;

/** Between the listings: never a ps line (those start with a pid) nor an `ls -l` line. */
const ARGS_MARK = '@@tmcp-args@@';
const LINKS_MARK = '@@tmcp-links@@';
const PS_SCRIPT = [
  'LC_ALL=C; export LC_ALL',
  `ps -A -L -o pid=,lwp=,ppid=,pgid=,tpgid=,uid=,stat=,tty=,wchan:40=,comm= && echo '${ARGS_MARK}' && ps -A -o pid=,args= && echo '${LINKS_MARK}' || exit 3`,
  // ls exits non-zero when a process exited meanwhile or is another user's: what it
  // printed for the rest still counts.
  `ls -l -b -- /proc/[0-9]*/exe /proc/[0-9]*/fd 2>/dev/null | grep -e '^/proc/[0-9]*/fd:$' -e ' /proc/[0-9]*/exe -> ' -e ' -> /dev/pts/[0-9]*$'`,
  'exit 0',
].join('; ');

interface ThreadRow {
  pid: number;
  lwp: number;
  ppid: number;
  pgid: number;
  tpgid: number;
  uid: number;
  state: string;
  tty: string;
  wchan: string;
  comm: string;
}

const THREAD_RE = /^\s*(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(-?\d+)\s+(\d+)\s+(\S+)\s+(\S+)\s+(\S+) (.*)$/;

/** Parses step 1's output; null when it is not what ps prints. */
export function parseRemotePs(stdout: string): { threads: ThreadRow[]; args: Map<number, string>; links: string } | null {
  const mark = stdout.indexOf(`\n${ARGS_MARK}\n`);
  if (mark < 0) return null;
  const threads: ThreadRow[] = [];
  for (const line of stdout.slice(0, mark).split('\n')) {
    if (line.trim() === '') continue;
    const m = THREAD_RE.exec(line);
    if (m === null) return null;
    const n = (i: number) => Number(m[i]);
    threads.push({ pid: n(1), lwp: n(2), ppid: n(3), pgid: n(4), tpgid: n(5), uid: n(6), state: m[7] ?? '', tty: m[8] ?? '', wchan: m[9] ?? '', comm: (m[10] ?? '').trim() });
    if (threads.length > MAX_REMOTE_THREADS) return null;
  }
  const args = new Map<number, string>();
  const linksAt = stdout.indexOf(`\n${LINKS_MARK}\n`, mark);
  if (linksAt < 0) return null;
  for (const line of stdout.slice(mark + ARGS_MARK.length + 2, linksAt).split('\n')) {
    const m = /^\s*(\d+) (.*)$/.exec(line);
    if (m !== null) args.set(Number(m[1]), (m[2] ?? '').trim());
  }
  return { threads, args, links: stdout.slice(linksAt + LINKS_MARK.length + 2) };
}

/** Parses step 2's `ls -l -b` output: each listed process's executable, and which
 * processes hold `/dev/pts/<n>` open. */
export function parseRemoteLinks(stdout: string): { exe: Map<number, string>; ttys: Map<number, Set<string>> } {
  const exe = new Map<number, string>();
  const ttys = new Map<number, Set<string>>();
  let dir: number | null = null;
  for (const line of stdout.split('\n')) {
    const header = /^\/proc\/(\d+)\/fd:$/.exec(line);
    if (header !== null) {
      dir = Number(header[1]);
      continue;
    }
    if (dir === null) {
      const link = / \/proc\/(\d+)\/exe -> (.+)$/.exec(line);
      if (link !== null) exe.set(Number(link[1]), (link[2] ?? '').replace(/ \(deleted\)$/, ''));
      continue;
    }
    const fd = / \d+ -> (\/dev\/pts\/\d+)$/.exec(line);
    if (fd !== null) {
      const set = ttys.get(dir) ?? new Set<string>();
      set.add(fd[1] as string);
      ttys.set(dir, set);
    }
  }
  return { exe, ttys };
}

const basename = (path: string) => path.slice(path.lastIndexOf('/') + 1);

/** argv[0]'s basename from ps's `args` (argv joined by spaces), as process-tree.ts takes
 * it from /proc/<pid>/cmdline; null for a zombie or kernel thread (`[name]`). */
function argv0Of(args: string | undefined): string | null {
  if (args === undefined || args === '' || args.startsWith('[')) return null;
  const first = basename(args.split(' ')[0] ?? '');
  return first === '' ? null : first;
}

/** Whether the foreground group waits for input, by its threads' wait channels (the same
 * rule as process-tree.ts `foregroundInputWait`). */
function inputWaitOf(threads: readonly ThreadRow[]): 'reading' | 'busy' | 'unknown' {
  if (threads.length > MAX_THREADS_READ) return 'unknown';
  let seen = false;
  for (const t of threads) {
    if (INPUT_WAIT_RE.test(t.wchan)) return 'reading';
    const state = t.state.slice(0, 1);
    if (['R', 'D', 'Z', 'T', 't'].includes(state) || (t.wchan !== '-' && t.wchan !== '' && t.wchan !== '0')) seen = true;
  }
  return seen || threads.length === 0 ? 'busy' : 'unknown';
}

export type RemoteRun = (words: readonly string[]) => Promise<{ exitCode: number; stdout: string; timedOut: boolean }>;

/** The pane's process tree on the node; `run` runs one remote command (fixed words). */
export async function readRemotePaneProcessTree(run: RemoteRun, panePid: number): Promise<PaneProcessFacts> {
  if (!Number.isSafeInteger(panePid) || panePid <= 1) return { source: 'unreadable', reason: 'invalid pane pid' };
  // As on this host: a pane the node's tmux just created may still be tmux's fork.
  return readAfterExec(() => readRemoteOnce(run, panePid), REMOTE_EXEC_RETRY_MS);
}

/** Between two reads of a pane still tmux's fork (each read is one ssh channel). */
const REMOTE_EXEC_RETRY_MS = 50;

async function readRemoteOnce(run: RemoteRun, panePid: number): Promise<PaneProcessFacts> {
  const listed = await run(['sh', '-c', PS_SCRIPT]);
  if (listed.timedOut || listed.exitCode === 255) throw new AppError('TMUX_UNAVAILABLE', 'the node did not answer the process read');
  if (listed.exitCode !== 0) return { source: 'unreadable', reason: 'ps could not list the processes on the node' };
  const ps = parseRemotePs(listed.stdout);
  if (ps === null) return { source: 'unreadable', reason: "the node's ps output could not be read" };

  const byPid = new Map<number, ThreadRow>();
  const threadsOf = new Map<number, ThreadRow[]>();
  const children = new Map<number, ThreadRow[]>();
  for (const t of ps.threads) {
    threadsOf.set(t.pid, [...(threadsOf.get(t.pid) ?? []), t]);
    if (t.lwp !== t.pid) continue;
    byPid.set(t.pid, t);
    children.set(t.ppid, [...(children.get(t.ppid) ?? []), t]);
  }
  const pane = byPid.get(panePid);
  if (pane === undefined) return { source: 'unreadable', reason: 'the pane process is not visible on the node' };
  const foregroundGroup = pane.tpgid;
  const members = new Map<number, ThreadRow>([[pane.pid, pane]]);
  const queue = [pane.pid];
  const tooMany: PaneProcessFacts = { source: 'unreadable', reason: `more than ${MAX_PANE_PROCESSES} processes in the pane` };
  while (queue.length > 0) {
    const pid = queue.shift() as number;
    for (const child of children.get(pid) ?? []) {
      if (members.has(child.pid)) continue;
      members.set(child.pid, child);
      queue.push(child.pid);
    }
    if (members.size > MAX_PANE_PROCESSES) return tooMany;
  }
  if (foregroundGroup > 0) for (const t of byPid.values()) if (t.pgid === foregroundGroup) members.set(t.pid, t);
  if (members.size > MAX_PANE_PROCESSES) return tooMany;

  // Processes of the pane's user without a controlling terminal, outside the pane: any of
  // them may hold the pane's pty (they left its session).
  const paneTty = /^pts\/\d+$/.test(pane.tty) ? `/dev/${pane.tty}` : null;
  const candidates = paneTty === null ? [] : [...byPid.values()].filter((t) => !members.has(t.pid) && t.tty === '?' && t.uid === pane.uid && t.pid > 2 && t.ppid !== 2);
  if (candidates.length > MAX_DETACHED_CANDIDATES) return { source: 'unreadable', reason: 'too many processes without a terminal to inspect' };
  const links = parseRemoteLinks(ps.links);
  const holders = paneTty === null ? [] : candidates.filter((t) => links.ttys.get(t.pid)?.has(paneTty) === true);
  for (const t of holders) members.set(t.pid, t);
  if (members.size > MAX_PANE_PROCESSES) return tooMany;

  const reads = (t: ThreadRow) => (foregroundGroup > 0 && t.pgid === foregroundGroup) || holders.includes(t);
  const processes: PaneProcess[] = [...members.values()].map((t) => {
    const exe = links.exe.get(t.pid);
    // The executable's path and the effective uid (ps `uid`) as here; whether the file is
    // root's alone is not read on a node (exeTrusted absent: the path's directory decides).
    return { pid: t.pid, ppid: t.ppid, foreground: reads(t), exe: exe === undefined ? null : basename(exe), comm: t.comm, argv0: argv0Of(ps.args.get(t.pid)), exePath: exe ?? null, uid: t.uid };
  });
  const foregroundThreads = foregroundGroup > 0 ? [...members.values()].filter((t) => t.pgid === foregroundGroup).flatMap((t) => threadsOf.get(t.pid) ?? []) : [];
  return { source: 'proc', panePid, foregroundGroup, processes, inputWait: foregroundGroup > 0 ? inputWaitOf(foregroundThreads) : 'unknown' };
}

/** The reader for one node: each remote command is a channel of its master connection. */
export function remoteProcessTreeReader(target: SshTarget, sshPath = 'ssh'): (panePid: number) => Promise<PaneProcessFacts> {
  const run: RemoteRun = async (words) => {
    const result = await execa(sshPath, sshCommandArgs(target, words), {
      reject: false,
      stdin: 'ignore',
      cwd: '/',
      timeout: REMOTE_PROCESS_READ_TIMEOUT_MS,
      killSignal: 'SIGKILL',
      maxBuffer: MAX_OUTPUT_BYTES,
    });
    return {
      exitCode: typeof result.exitCode === 'number' ? result.exitCode : -1,
      stdout: typeof result.stdout === 'string' ? result.stdout : '',
      timedOut: result.timedOut === true,
    };
  };
  return (panePid) => readRemotePaneProcessTree(run, panePid);
}
