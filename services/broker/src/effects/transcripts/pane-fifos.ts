/**
 * The FIFOs tmux's `pipe-pane` writes recorded panes' output into (effects/tmux/
 * pane-pipe.ts): one per pane, in a directory only the broker's user can enter, named
 * after the pane's identity, `<server pid>-<pane number>-<pane pid>.fifo`.
 *
 * Why a FIFO: the raw output must never touch the disk before it is redacted (a regular
 * file would), and `sh` plus `cat` are all the pipe's command may rely on (a Unix socket
 * would need `nc` or `socat`). The reader is opened BEFORE the pipe, non-blocking: on
 * Linux a FIFO reader that has never had a writer gets no end-of-file, so it simply waits
 * for `cat`; once `cat` exits (the pane ended, or its pipe was closed or replaced), the
 * reader gets end-of-file. `cat` opens it without ever blocking (pane-pipe.ts
 * pipeCommand), so a broker that dies (even by SIGKILL) leaves nothing waiting: with no
 * reader, `cat` dies of SIGPIPE at the pane's next output and tmux closes the pipe.
 *
 * A FIFO is removed only once its pane has been gone for REMOVE_AFTER_MS: the pipe's
 * `sh` opens it by name, and a redirection onto a name that no longer exists would
 * CREATE a regular file and put raw output in it. (The command also checks `[ -p … ]`
 * first; a FIFO that stays while its pane lives costs nothing, and a pane piped again
 * reuses it.)
 *
 * A pipe outlives its broker only while its pane prints nothing. The next broker finds it
 * by the pane identity in the FIFO's name and tells it from a user's pipe by opening the
 * FIFO: a live writer (ours: `cat`) makes a non-blocking read answer EAGAIN, none makes
 * it answer end-of-file (`hasWriter`). Ours is then replaced by a new pipe.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, constants, lstatSync, mkdirSync, openSync, readdirSync, readSync, rmSync } from 'node:fs';
import { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { SAFE_PIPE_PATH_RE } from '../tmux/pane-pipe.js';

const FIFO_RE = /^(\d{1,10})-(\d{1,10})-(\d{1,10})\.fifo$/;
/** How long a FIFO stays after its pane was last seen. */
export const REMOVE_AFTER_MS = 10_000;

export interface PaneKey {
  readonly serverPid: number;
  readonly paneId: string;
  readonly panePid: number;
}

export interface PaneFifos {
  readonly dir: string;
  /** The pane's FIFO (mode 0600), made now unless it exists. */
  create(pane: PaneKey): Promise<string>;
  /** Opens `path` for reading without blocking; data and end-of-file arrive as events. */
  openReader(path: string): Socket;
  /** True when a `cat` of ours (an earlier broker's, or an earlier pipe's) still writes
   * the pane's FIFO: the pane's pipe is ours, not the user's. */
  ownPipe(pane: PaneKey): boolean;
  /** Removes the FIFOs of panes not in `live` ("serverPid-paneNumber-panePid") once they
   * have been missing for REMOVE_AFTER_MS. */
  removeStale(live: ReadonlySet<string>, nowMs: number): void;
}

const paneKeyOf = (p: PaneKey) => `${p.serverPid}-${p.paneId.slice(1)}-${p.panePid}`;
export const paneKeyText = paneKeyOf;

/**
 * `<state dir>/pipes`, or, when that path has characters a tmux command line must not
 * carry, a directory under the temp dir named after a hash of the state dir (created
 * 0700 and checked to be ours, not a link).
 */
export function pipesDirFor(stateDir: string): string {
  const preferred = join(resolve(stateDir), 'pipes');
  if (SAFE_PIPE_PATH_RE.test(join(preferred, '0000000000-0000000000-0000000000-00000000.fifo'))) return preferred;
  const base = SAFE_PIPE_PATH_RE.test(`${resolve(tmpdir())}/x`) ? resolve(tmpdir()) : '/tmp';
  const hash = createHash('sha256').update(resolve(stateDir)).digest('hex').slice(0, 16);
  return join(base, `terminal-mcp-${process.getuid?.() ?? 0}-${hash}`);
}

function ensurePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const st = lstatSync(dir);
  if (!st.isDirectory() || (process.getuid !== undefined && st.uid !== process.getuid()) || (st.mode & 0o077) !== 0) {
    throw new Error(`transcript pipe directory ${dir} is not a private directory of this user`);
  }
}

const mkfifo = (paths: readonly string[]) =>
  new Promise<void>((ok, fail) => execFile('mkfifo', ['-m', '600', '--', ...paths], { timeout: 10_000 }, (err) => (err ? fail(err) : ok())));

/** True when some process has `path` open for writing (see the module comment). */
function hasWriter(path: string): boolean {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch {
    return false;
  }
  try {
    // Bytes left in it belong to a gap nobody recorded: read and dropped. Then an empty
    // FIFO answers EAGAIN while a writer holds it, end-of-file once none does.
    const buf = Buffer.alloc(64 * 1024);
    for (let i = 0; i < 64; i += 1) if (readSync(fd, buf) === 0) return false;
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EAGAIN';
  } finally {
    closeSync(fd);
  }
}

export function openPaneFifos(stateDir: string): PaneFifos {
  const dir = pipesDirFor(stateDir);
  let ready = false;
  const names = () => {
    if (!ready) ensurePrivateDir(dir);
    ready = true;
    return readdirSync(dir);
  };
  const pathOf = (pane: PaneKey) => join(dir, `${paneKeyOf(pane)}.fifo`);
  /** When each FIFO was first seen without its pane. */
  const missingSince = new Map<string, number>();
  /** FIFOs asked for in this turn of the event loop: made by one `mkfifo` (a recording of
   * forty sessions starts forty panes at once, and each spawn costs a fork of the broker). */
  let batch: { paths: Set<string>; made: Promise<void> } | null = null;
  const makeSoon = (path: string): Promise<void> => {
    if (batch === null) {
      const paths = new Set<string>();
      batch = {
        paths,
        made: new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
          batch = null;
          // One failing name (made meanwhile) fails the command, not the others: each
          // caller checks its own below.
          return mkfifo([...paths]).catch(() => undefined);
        }),
      };
    }
    batch.paths.add(path);
    return batch.made;
  };
  return {
    dir,
    async create(pane) {
      names();
      const path = pathOf(pane);
      const st = lstatSync(path, { throwIfNoEntry: false });
      if (st?.isFIFO()) return path;
      if (st !== undefined) rmSync(path, { force: true });
      await makeSoon(path);
      if (!lstatSync(path, { throwIfNoEntry: false })?.isFIFO()) throw new Error(`mkfifo did not make ${path}`);
      return path;
    },
    openReader(path) {
      const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
      return new Socket({ fd, readable: true, writable: false });
    },
    ownPipe(pane) {
      names();
      return hasWriter(pathOf(pane));
    },
    removeStale(live, nowMs) {
      let all: string[];
      try {
        all = names();
      } catch {
        return;
      }
      for (const name of all) {
        const m = FIFO_RE.exec(name);
        if (m === null) continue;
        if (live.has(`${m[1]}-${m[2]}-${m[3]}`)) {
          missingSince.delete(name);
          continue;
        }
        const since = missingSince.get(name) ?? nowMs;
        missingSince.set(name, since);
        if (nowMs - since < REMOVE_AFTER_MS) continue;
        missingSince.delete(name);
        rmSync(join(dir, name), { force: true });
      }
    },
  };
}
