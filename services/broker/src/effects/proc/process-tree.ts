/**
 * Reads a tmux pane's process tree from /proc, for the input gates (policy/foreground.ts
 * says what the facts mean). One pass over /proc/<pid>/stat finds the pane process's
 * descendants and the members of its terminal's foreground process group (field `tpgid`
 * of the pane process: the group that reads typed input); for each of them the executable
 * (/proc/<pid>/exe), the kernel command name and argv[0] are read.
 *
 * A process can also read the pane's terminal from outside both: `setsid -f ssh host` in
 * the pane leaves ssh in a session of its own, reparented away from the pane, with no
 * controlling terminal, yet still holding the pane's pty as its stdin. So every process
 * without a controlling terminal that started after the pane process is checked for an
 * open file descriptor on the pane's pty (/proc/<pid>/fd), and counts as a reader of the
 * pane when it has one.
 *
 * Read at the moment of asking and never cached: a process tree changes between two
 * calls. A process that exits mid-read is skipped. Linux only: without /proc the answer
 * is `{ source: 'tmux' }` and the gates fall back to tmux's foreground command.
 */
import { accessSync, close, closeSync, constants, openSync, read, readdirSync, readFileSync, readlinkSync, readSync, statSync } from 'node:fs';
import type { PaneProcess, PaneProcessFacts } from '../../policy/foreground.js';

/** /proc is read with synchronous calls behind promise-shaped helpers: its files are made
 * by the kernel on read and never wait on a disk, so a read costs microseconds, while
 * each asynchronous call is a round trip through libuv's small thread pool. A scan of a
 * few hundred processes took about 40 ms that way on a loaded host (twice per send),
 * a few milliseconds this way. The exception is /proc/<pid>/cmdline, which reads the
 * process's memory and can wait on its memory lock (the reason `ps` can hang): it stays
 * asynchronous, and is read only for the pane's own processes: opened synchronously
 * (opening it takes no lock of the process: only reading its memory does), then one
 * asynchronous read per process (`readArgv0`), not readFile's open, stat, reads and
 * close, since each is a round trip through the thread pool and each costs milliseconds
 * on a loaded host. The descriptor is closed without waiting. The snapshot's
 * /proc/<pid>/stat files, one per process on the host, are read with one open, one read
 * into a buffer of the scan and one close each (`readStatSync`), not readFileSync's open,
 * stat, two reads and close. */
function settle<T>(read: () => T): Promise<T> {
  try {
    return Promise.resolve(read());
  } catch (err) {
    return Promise.reject(err as Error);
  }
}
const access = (path: string) => settle(() => accessSync(path));
const readdir = (path: string) => settle(() => readdirSync(path));
const readlink = (path: string) => settle(() => readlinkSync(path));
const readFile = (path: string, encoding: 'utf8') => settle(() => readFileSync(path, encoding));

/** More processes than this in one pane is refused as unreadable rather than half-read. */
export const MAX_PANE_PROCESSES = 2_000;
/** /proc entries looked at in one scan (a host with more processes is refused). */
const MAX_SCANNED = 200_000;

interface StatFields {
  pid: number;
  comm: string;
  ppid: number;
  pgrp: number;
  /** Field 7: the controlling terminal's device number; 0 for none. */
  ttyNr: number;
  tpgid: number;
  /** Field 22: clock ticks after boot when the process started. */
  startTime: number;
}

/** Parses /proc/<pid>/stat. `comm` sits in parentheses and may itself contain `)` and
 * spaces, so the fields after it are found from the LAST `)`. */
export function parseProcStat(text: string): StatFields | null {
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  if (open < 0 || close < open) return null;
  const pid = Number(text.slice(0, open).trim());
  const rest = text.slice(close + 2).split(' ');
  // rest: state ppid pgrp session tty_nr tpgid flags minflt cminflt majflt cmajflt utime
  // stime cutime cstime priority nice num_threads itrealvalue starttime ...
  const ppid = Number(rest[1]);
  const pgrp = Number(rest[2]);
  const ttyNr = Number(rest[4]);
  const tpgid = Number(rest[5]);
  const startTime = Number(rest[19]);
  if (![pid, ppid, pgrp, ttyNr, tpgid, startTime].every(Number.isSafeInteger)) return null;
  return { pid, comm: text.slice(open + 1, close), ppid, pgrp, ttyNr, tpgid, startTime };
}

/** Bytes of a /proc/<pid>/stat read at once (the kernel makes the whole line in one read;
 * it is a few hundred bytes). A longer one is read whole the ordinary way. */
const STAT_BUFFER_BYTES = 4_096;

/** /proc/<pid>/stat with one open, one read into `buffer` and one close (see the note at
 * the top); null when the process exited meanwhile. */
function readStatSync(procRoot: string, pid: string, buffer: Buffer): StatFields | null {
  const path = `${procRoot}/${pid}/stat`;
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY);
  } catch {
    return null; // exited meanwhile
  }
  let n: number;
  try {
    n = readSync(fd, buffer, 0, STAT_BUFFER_BYTES, 0);
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
  if (n < STAT_BUFFER_BYTES) return parseProcStat(buffer.toString('utf8', 0, n));
  try {
    return parseProcStat(readFileSync(path, 'utf8'));
  } catch {
    return null;
  }
}

const basename = (path: string) => path.slice(path.lastIndexOf('/') + 1);

/** The effective uid from /proc/<pid>/status (`Uid: real effective saved fs`); null when
 * the process exited. Readable for every process, even another user's. */
function effectiveUid(procRoot: string, pid: number): number | null {
  try {
    const m = /^Uid:\s+\d+\s+(\d+)/m.exec(readFileSync(`${procRoot}/${pid}/status`, 'utf8'));
    return m === null ? null : Number(m[1]);
  } catch {
    return null;
  }
}

/** Whether the executable behind /proc/<pid>/exe is owned by root and writable by no one
 * else (group or others), as is its directory: a file no unprivileged agent could have put
 * there. null when it cannot be checked (another user's process, a deleted file). */
function executableTrusted(procRoot: string, pid: number, path: string | null): boolean | null {
  if (path === null || path.endsWith(' (deleted)')) return null;
  try {
    const file = statSync(`${procRoot}/${pid}/exe`);
    const dir = statSync(path.slice(0, path.lastIndexOf('/')) || '/');
    const rootOnly = (st: { uid: number; mode: number }) => st.uid === 0 && (st.mode & 0o022) === 0;
    return rootOnly(file) && rootOnly(dir);
  } catch {
    return null;
  }
}

async function describe(procRoot: string, s: StatFields, foreground: boolean): Promise<PaneProcess> {
  const exePath = await readlink(`${procRoot}/${s.pid}/exe`).then(
    (link) => link,
    () => null, // another user's process (sudo), a kernel thread, or exited
  );
  const exe = exePath === null ? null : basename(exePath.replace(/ \(deleted\)$/, ''));
  const argv0 = await readArgv0(`${procRoot}/${s.pid}/cmdline`).then(
    (first) => (first === null || first === '' ? null : basename(first.split(' ')[0] ?? '')),
    () => null,
  );
  return {
    pid: s.pid,
    ppid: s.ppid,
    foreground,
    exe,
    comm: s.comm,
    argv0: argv0 === '' ? null : argv0,
    exePath,
    uid: effectiveUid(procRoot, s.pid),
    exeTrusted: executableTrusted(procRoot, s.pid, exePath),
  };
}

/** Bytes of /proc/<pid>/cmdline read per round trip; argv[0] ends at its first NUL. */
const CMDLINE_CHUNK = 4_096;
/** argv[0] is at most MAX_ARG_STRLEN (128 KiB) on Linux: no more is read. */
const CMDLINE_MAX = 128 * 1_024;

/** argv[0] from /proc/<pid>/cmdline (up to its first NUL; null when empty), read
 * asynchronously (see the note at the top) in as few thread-pool round trips as it can:
 * opened at once (the open takes no lock of the process), then reads until a NUL or the
 * end, the close not waited for. */
function readArgv0(path: string): Promise<string | null> {
  return new Promise((resolve, reject) => {
    let fd: number;
    try {
      fd = openSync(path, constants.O_RDONLY);
    } catch (openErr) {
      return reject(openErr as Error);
    }
    const chunks: Buffer[] = [];
    let total = 0;
    const done = (err: Error | null, value: string | null) => {
      close(fd, () => undefined);
      if (err) reject(err);
      else resolve(value);
    };
    const next = () => {
      const chunk = Buffer.allocUnsafe(CMDLINE_CHUNK);
      read(fd, chunk, 0, CMDLINE_CHUNK, total, (readErr, n) => {
        if (readErr) return done(readErr, null);
        const got = chunk.subarray(0, n);
        const nul = got.indexOf(0);
        chunks.push(nul < 0 ? got : got.subarray(0, nul));
        total += n;
        if (nul >= 0 || n === 0 || total >= CMDLINE_MAX) {
          const first = Buffer.concat(chunks).toString('utf8');
          return done(null, first === '' ? null : first);
        }
        next();
      });
    };
    next();
  });
}

/** Processes looked at for an open descriptor on the pane's pty in one check, and the
 * descriptors read of each: beyond either the pane is refused as unreadable. */
export const MAX_DETACHED_CANDIDATES = 1_000;
const MAX_FDS_PER_PROCESS = 256;

/** The pane's pty (`/dev/pts/N`), from the pane process's standard input. */
async function paneTty(procRoot: string, panePid: number): Promise<string | null> {
  const link = await readlink(`${procRoot}/${panePid}/fd/0`).catch(() => null);
  return link !== null && /^\/dev\/pts\/\d+$/.test(link) ? link : null;
}

/** Processes outside `members` that hold the pane's pty open though they have no
 * controlling terminal (they left the pane's session), started after the pane process.
 * Another user's process cannot be inspected (its fd directory is unreadable) and is
 * skipped: the gate keeps this user's agents from typing into this user's credential
 * prompts. null when there are too many candidates to check. */
async function ttyHolders(procRoot: string, snap: Extract<ProcSnapshot, { kind: 'stats' }>, pane: StatFields, members: ReadonlyMap<number, StatFields>): Promise<StatFields[] | null> {
  const tty = await paneTty(procRoot, pane.pid);
  if (tty === null) return [];
  // Not this process: the broker never opens a pane's pty (it talks to tmux through
  // pipes), and it holds many descriptors (sockets, stores, FIFOs) that would all be read
  // on every send whenever it started after the pane (a broker restarted under long-lived
  // sessions).
  const candidates = [...snap.byPid.values()].filter((s) => !members.has(s.pid) && s.ttyNr === 0 && s.startTime >= pane.startTime && s.pid > 2 && s.ppid !== 2 && s.pid !== process.pid);
  if (candidates.length > MAX_DETACHED_CANDIDATES) return null;
  // Synchronous calls in a plain loop (see the note at the top): a promise and a turn of
  // the microtask queue per descriptor cost more than the readlink itself.
  return candidates.filter((s) => holdsTty(procRoot, s.pid, tty));
}

/** Whether one of the first MAX_FDS_PER_PROCESS descriptors of `pid` is the pane's pty. */
function holdsTty(procRoot: string, pid: number, tty: string): boolean {
  let fds: string[];
  try {
    fds = readdirSync(`${procRoot}/${pid}/fd`);
  } catch {
    return false; // another user's process, or exited meanwhile
  }
  for (const fd of fds.slice(0, MAX_FDS_PER_PROCESS)) {
    try {
      if (readlinkSync(`${procRoot}/${pid}/fd/${fd}`) === tty) return true;
    } catch {
      // closed or exited meanwhile
    }
  }
  return false;
}

type ProcSnapshot =
  | { kind: 'none' }
  | { kind: 'too_many' }
  | { kind: 'unlistable' }
  | { kind: 'stats'; byPid: Map<number, StatFields>; children: Map<number, StatFields[]> };

/** One pass over /proc/<pid>/stat. */
async function snapshot(procRoot: string): Promise<ProcSnapshot> {
  try {
    await access(`${procRoot}/self/stat`);
  } catch {
    return { kind: 'none' };
  }
  let entries: string[];
  try {
    entries = (await readdir(procRoot)).filter((e) => /^\d+$/.test(e));
  } catch {
    return { kind: 'unlistable' };
  }
  if (entries.length > MAX_SCANNED) return { kind: 'too_many' };
  const buffer = Buffer.allocUnsafe(STAT_BUFFER_BYTES);
  const stats: StatFields[] = [];
  for (const e of entries) {
    const s = readStatSync(procRoot, e, buffer);
    if (s !== null) stats.push(s);
  }
  const byPid = new Map(stats.map((s) => [s.pid, s]));
  const children = new Map<number, StatFields[]>();
  for (const s of stats) {
    const list = children.get(s.ppid);
    if (list) list.push(s);
    else children.set(s.ppid, [s]);
  }
  return { kind: 'stats', byPid, children };
}

async function treeOf(procRoot: string, snap: ProcSnapshot, panePid: number, tmuxCommand: string): Promise<PaneProcessFacts> {
  if (snap.kind === 'none') return { source: 'tmux', command: tmuxCommand };
  if (snap.kind === 'too_many') return { source: 'unreadable', reason: 'too many processes on this host to inspect' };
  if (snap.kind === 'unlistable') return { source: 'unreadable', reason: '/proc could not be listed' };
  const paneStat = snap.byPid.get(panePid);
  if (!paneStat) return { source: 'unreadable', reason: 'the pane process is not visible in /proc' };
  // tpgid is -1 when the pane process has no controlling terminal (it detached).
  const foregroundGroup = paneStat.tpgid;
  const members = new Map<number, StatFields>([[paneStat.pid, paneStat]]);
  const queue = [paneStat.pid];
  const tooMany: PaneProcessFacts = { source: 'unreadable', reason: `more than ${MAX_PANE_PROCESSES} processes in the pane` };
  while (queue.length > 0) {
    const pid = queue.shift() as number;
    for (const child of snap.children.get(pid) ?? []) {
      if (members.has(child.pid)) continue;
      members.set(child.pid, child);
      queue.push(child.pid);
    }
    if (members.size > MAX_PANE_PROCESSES) return tooMany;
  }
  // A foreground-group member reparented away from the pane (its parent exited) still reads the terminal.
  if (foregroundGroup > 0) for (const s of snap.byPid.values()) if (s.pgrp === foregroundGroup) members.set(s.pid, s);
  // A process that left the pane's session (setsid) but still holds its pty reads it too.
  const holders = await ttyHolders(procRoot, snap, paneStat, members);
  if (holders === null) return { source: 'unreadable', reason: 'too many processes without a terminal to inspect' };
  for (const s of holders) members.set(s.pid, s);
  if (members.size > MAX_PANE_PROCESSES) return tooMany;
  const reads = (s: StatFields) => (foregroundGroup > 0 && s.pgrp === foregroundGroup) || holders.includes(s);
  const processes = await Promise.all([...members.values()].map((s) => describe(procRoot, s, reads(s))));
  const foreground = foregroundGroup > 0 ? [...members.values()].filter((s) => s.pgrp === foregroundGroup) : [];
  // A group that took the terminal after the /proc pass: its leader's pid is the group id.
  if (foreground.length === 0 && foregroundGroup > 0) {
    const leader = readStatSync(procRoot, String(foregroundGroup), Buffer.allocUnsafe(STAT_BUFFER_BYTES));
    if (leader) foreground.push(leader);
  }
  return { source: 'proc', panePid, foregroundGroup, processes, inputWait: foregroundGroup > 0 ? await settledInputWait(procRoot, foreground) : 'unknown' };
}

/** A thread between two states (just forked, mid-exec, just woken) briefly shows no wait
 * channel ("0" while sleeping). Measured here: 3 of 7,867 looks at a `while …; do sleep
 * 0.2; done` loop answered so, and four looks in a row without a pause all fell inside
 * the same moment on a loaded machine (run g38a1, load 10): the loop was taken for a
 * reader and type-ahead went through. So a process of our own (whose wait channel the
 * kernel does show us) that gives no evidence is looked at again with growing pauses,
 * up to about half a second; only another user's process, whose wait channel is hidden
 * from us, is `unknown` at once. */
const TRANSIENT_LOOKS = 12;
const TRANSIENT_PAUSE_MS = [1, 2, 5, 10, 20, 40, 60, 80, 100, 100, 100];
async function settledInputWait(procRoot: string, foreground: readonly StatFields[]): Promise<'reading' | 'busy' | 'unknown'> {
  let answer = await foregroundInputWait(procRoot, foreground);
  for (let i = 0; i < TRANSIENT_LOOKS - 1 && answer === 'transient'; i++) {
    await new Promise((resolve) => setTimeout(resolve, TRANSIENT_PAUSE_MS[i]));
    answer = await foregroundInputWait(procRoot, foreground);
  }
  return answer === 'transient' ? 'unknown' : answer;
}

/** Whether the kernel shows us `pid`'s wait channel: it does for our own processes (and
 * for every process when we are root); another user's reads "0" (ptrace access rules). */
function waitChannelVisible(procRoot: string, pid: number): boolean {
  const uid = process.getuid?.();
  if (uid === undefined || uid === 0) return true;
  try {
    return statSync(`${procRoot}/${pid}`).uid === uid;
  } catch {
    return false;
  }
}

/** Kernel wait channels of a thread blocked waiting for input: a terminal read
 * (n_tty_read sleeps in wait_woken) or a poll, select or epoll wait. */
export const INPUT_WAIT_RE = /^(wait_woken|n_tty_read|tty_read|poll_schedule_timeout|do_select|core_sys_select|do_sys_poll|ep_poll|do_epoll_wait)\b/;
export const MAX_THREADS_READ = 256;

/**
 * Whether the terminal's foreground process group is waiting for input now: `reading`
 * when one of its threads is blocked in a read, poll, select or epoll wait; `busy` when
 * every thread runs or waits for something else (a timer as in `sleep`, a child, a pipe),
 * so typed text would sit in the terminal's queue for whatever reads it next; `unknown`
 * when a wait channel cannot be read (another user's process, a kernel that hides them).
 */
async function foregroundInputWait(procRoot: string, foreground: readonly StatFields[]): Promise<'reading' | 'busy' | 'unknown' | 'transient'> {
  // `busy` needs one thread seen running or waiting on something else; a thread whose
  // wait channel reads as nothing (mid-fork or mid-exec, or hidden) is not evidence of
  // reading. With no evidence either way: `transient` when the kernel shows us the wait
  // channels (look again), `unknown` when it hides them.
  let seen = false;
  let visible = true;
  let threads = 0;
  for (const s of foreground) {
    // A process that exited since the snapshot reads nothing.
    const tids = await readdir(`${procRoot}/${s.pid}/task`).catch(() => [] as string[]);
    if (tids.length > 0 && !waitChannelVisible(procRoot, s.pid)) visible = false;
    for (const tid of tids) {
      if (++threads > MAX_THREADS_READ) return 'unknown';
      const [stat, wchan] = await Promise.all([
        readFile(`${procRoot}/${s.pid}/task/${tid}/stat`, 'utf8').catch(() => null),
        readFile(`${procRoot}/${s.pid}/task/${tid}/wchan`, 'utf8').catch(() => null),
      ]);
      if (stat === null) {
        threads--; // exited meanwhile
        continue;
      }
      if (wchan !== null && INPUT_WAIT_RE.test(wchan)) return 'reading';
      const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
      if (['R', 'D', 'Z', 'T', 't'].includes(state) || (wchan !== null && wchan !== '' && wchan !== '0')) seen = true;
    }
  }
  // No thread left at all: the group exited and nothing waits for input until the shell
  // takes the terminal back.
  if (seen || threads === 0) return 'busy';
  return visible ? 'transient' : 'unknown';
}

/** The pane process `panePid`, its descendants and its terminal's foreground group.
 * `tmuxCommand` (tmux's foreground command for the pane) is the answer where there is no
 * /proc. */
export async function readPaneProcessTree(panePid: number, tmuxCommand: string, procRoot = '/proc'): Promise<PaneProcessFacts> {
  return readAfterExec(async () => treeOf(procRoot, await snapshot(procRoot), panePid, tmuxCommand), PROC_EXEC_RETRY_MS);
}

/** How long a pane's process may take to exec its command before a read answers anyway. */
const PANE_EXEC_WAIT_MS = 10_000;
/** Between two /proc passes over a pane that is still tmux's fork. */
const PROC_EXEC_RETRY_MS = 20;

/**
 * A pane read right after tmux created it may still be tmux's own fork, before it has
 * exec'd the pane's command: named "tmux: server", it would read as a guarded `tmux`
 * (g41a: a restart right after a start, at load 11, refused COMMAND_GUARDED). `read` is
 * done again, every `retryMs`, until the pane has exec'd, within PANE_EXEC_WAIT_MS; then
 * the answer stands as read. This host's reads and a node's (effects/ssh/remote-processes.ts)
 * share it.
 */
export async function readAfterExec(read: () => Promise<PaneProcessFacts>, retryMs: number): Promise<PaneProcessFacts> {
  const deadline = Date.now() + PANE_EXEC_WAIT_MS;
  for (;;) {
    const facts = await read();
    if (!stillTmuxFork(facts) || Date.now() >= deadline) return facts;
    await new Promise((resolve) => setTimeout(resolve, retryMs));
  }
}

/** tmux names its server "tmux: server" (and a client "tmux: client"); the pane's own
 * process under that name is the server's fork that has not exec'd yet. A tmux server a
 * user starts in a pane daemonizes out of the pane's tree. */
function stillTmuxFork(facts: PaneProcessFacts): boolean {
  return facts.source === 'proc' && facts.processes.some((p) => p.pid === facts.panePid && p.comm === 'tmux: server');
}

/** The same for several panes at once, from one pass over /proc (the session list). */
export async function readPaneProcessTrees(
  panes: readonly { readonly panePid: number; readonly tmuxCommand: string }[],
  procRoot = '/proc',
): Promise<PaneProcessFacts[]> {
  if (panes.length === 0) return [];
  // The same rule as readPaneProcessTree: a pane still tmux's fork is read again (with the
  // others that still are, from a new pass) until it has exec'd or PANE_EXEC_WAIT_MS passed.
  const deadline = Date.now() + PANE_EXEC_WAIT_MS;
  const read = async () => {
    const snap = await snapshot(procRoot);
    return Promise.all(panes.map((p) => treeOf(procRoot, snap, p.panePid, p.tmuxCommand)));
  };
  const facts = await read();
  while (facts.some(stillTmuxFork) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, PROC_EXEC_RETRY_MS));
    const again = await read();
    facts.forEach((f, i) => {
      if (stillTmuxFork(f)) facts[i] = again[i]!;
    });
  }
  return facts;
}
