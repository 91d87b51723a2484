/**
 * Reads a tmux pane's process tree from /proc, for the input gates (policy/foreground.ts
 * says what the facts mean). One pass over /proc/<pid>/stat finds the pane process's
 * descendants and the members of its terminal's foreground process group (field `tpgid`
 * of the pane process: the group that reads typed input); for each of them the executable
 * (/proc/<pid>/exe), the kernel command name and argv[0] are read.
 *
 * Read at the moment of asking and never cached: a process tree changes between two
 * calls. A process that exits mid-read is skipped. Linux only: without /proc the answer
 * is `{ source: 'tmux' }` and the gates fall back to tmux's foreground command.
 */
import { access, readdir, readFile, readlink } from 'node:fs/promises';
import type { PaneProcess, PaneProcessFacts } from '../../policy/foreground.js';

/** More processes than this in one pane is refused as unreadable rather than half-read. */
export const MAX_PANE_PROCESSES = 2_000;
/** /proc entries looked at in one scan (a host with more processes is refused). */
const MAX_SCANNED = 200_000;

interface StatFields {
  pid: number;
  comm: string;
  ppid: number;
  pgrp: number;
  tpgid: number;
}

/** Parses /proc/<pid>/stat. `comm` sits in parentheses and may itself contain `)` and
 * spaces, so the fields after it are found from the LAST `)`. */
export function parseProcStat(text: string): StatFields | null {
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  if (open < 0 || close < open) return null;
  const pid = Number(text.slice(0, open).trim());
  const rest = text.slice(close + 2).split(' ');
  // rest: state ppid pgrp session tty_nr tpgid ...
  const ppid = Number(rest[1]);
  const pgrp = Number(rest[2]);
  const tpgid = Number(rest[5]);
  if (![pid, ppid, pgrp, tpgid].every(Number.isSafeInteger)) return null;
  return { pid, comm: text.slice(open + 1, close), ppid, pgrp, tpgid };
}

async function readStat(procRoot: string, pid: string): Promise<StatFields | null> {
  try {
    return parseProcStat(await readFile(`${procRoot}/${pid}/stat`, 'utf8'));
  } catch {
    return null; // exited meanwhile
  }
}

const basename = (path: string) => path.slice(path.lastIndexOf('/') + 1);

async function describe(procRoot: string, s: StatFields, foreground: boolean): Promise<PaneProcess> {
  const exe = await readlink(`${procRoot}/${s.pid}/exe`).then(
    (link) => basename(link.replace(/ \(deleted\)$/, '')),
    () => null, // another user's process (sudo), a kernel thread, or exited
  );
  const argv0 = await readFile(`${procRoot}/${s.pid}/cmdline`).then(
    (buf) => {
      const end = buf.indexOf(0);
      const first = buf.subarray(0, end < 0 ? buf.length : end).toString('utf8');
      return first === '' ? null : basename(first.split(' ')[0] ?? '');
    },
    () => null,
  );
  return { pid: s.pid, ppid: s.ppid, foreground, exe, comm: s.comm, argv0: argv0 === '' ? null : argv0 };
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
  const stats = (await Promise.all(entries.map((e) => readStat(procRoot, e)))).filter((s): s is StatFields => s !== null);
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
  if (members.size > MAX_PANE_PROCESSES) return tooMany;
  const processes = await Promise.all([...members.values()].map((s) => describe(procRoot, s, foregroundGroup > 0 && s.pgrp === foregroundGroup)));
  return { source: 'proc', panePid, foregroundGroup, processes };
}

/** The pane process `panePid`, its descendants and its terminal's foreground group.
 * `tmuxCommand` (tmux's foreground command for the pane) is the answer where there is no
 * /proc. */
export async function readPaneProcessTree(panePid: number, tmuxCommand: string, procRoot = '/proc'): Promise<PaneProcessFacts> {
  return treeOf(procRoot, await snapshot(procRoot), panePid, tmuxCommand);
}

/** The same for several panes at once, from one pass over /proc (the session list). */
export async function readPaneProcessTrees(
  panes: readonly { readonly panePid: number; readonly tmuxCommand: string }[],
  procRoot = '/proc',
): Promise<PaneProcessFacts[]> {
  if (panes.length === 0) return [];
  const snap = await snapshot(procRoot);
  return Promise.all(panes.map((p) => treeOf(procRoot, snap, p.panePid, p.tmuxCommand)));
}
