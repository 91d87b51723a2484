/**
 * The FIFOs terminal_run's status line talks to the broker through (effects/tmux/
 * run-signal.ts says how they are used): per run, a pair with a random 128-bit name,
 * `<id>.status` (the shell writes its `$?`) and `<id>.ack` (the broker answers once it
 * has read where the output ended), in `<state dir>/runs/` (directory 0700, FIFOs 0600).
 *
 * Node cannot make a FIFO, so `mkfifo` is spawned; to keep that spawn off a run's path,
 * pairs are made ahead, many per spawn, and each pair serves one run only (its name is
 * typed into that run's pane and nowhere else). A spawn stops the broker's event loop for
 * milliseconds (measured: 5-8 ms here), so the refill is started a moment after the take
 * that asked for it, not between the take and the typing of the run's line. A pair is removed when its run is
 * done with it; those still unused when the broker stops are removed then, and whatever
 * a killed broker left is removed when the next one first makes pairs.
 *
 * Both ends are opened without blocking anyone. The broker holds the status FIFO open
 * read-write (it never sees end-of-file, whoever opens and closes it); the ack is
 * written only while someone (the shell) holds the ack FIFO open for reading, else it is
 * dropped (`ack` answers false). The shell opens both read-write (`<>`), which never
 * blocks on a FIFO, so a status line never hangs on a broker that is gone.
 */
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { closeSync, constants, lstatSync, mkdirSync, openSync, readdirSync, rmSync, writeSync } from 'node:fs';
import { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/** Pairs kept ready; refilled (one spawn) when fewer than REFILL_BELOW are left, after
 * REFILL_DELAY_MS (a take with none ready makes them at once). */
const POOL_SIZE = 32;
const REFILL_BELOW = 8;
const REFILL_DELAY_MS = 100;
const NAME_RE = /^[0-9a-f]{32}\.(?:status|ack)$/;
/** What a path typed into a pane may hold: it goes between single quotes on a line that
 * must stay one line of plain text. */
const SAFE_DIR_RE = /^\/[A-Za-z0-9._/+@,=-]{1,400}$/;

export interface RunFifoPair {
  /** 32 hex digits: the run's channel id. */
  readonly id: string;
  readonly statusPath: string;
  readonly ackPath: string;
}

export interface RunFifos {
  readonly dir: string;
  /** A pair no run has used (made ahead; made now when none is ready). */
  take(): Promise<RunFifoPair>;
  /** The status FIFO, open read-write and non-blocking; data arrives as events. */
  openStatus(path: string): Socket;
  /** Writes the ack if a reader holds the ack FIFO open; false when none does. */
  ack(path: string): boolean;
  /** Removes a pair's FIFOs (a missing one is no error). */
  remove(pair: RunFifoPair): void;
  /** Removes the pairs made ahead (also those a refill is making now); later takes fail. */
  close(): Promise<void>;
}

/** Whether a FIFO path may be typed into a pane's status line (a node's too). */
export const isTypeableRunPath = (path: string): boolean => SAFE_DIR_RE.test(path);

/** `<state dir>/runs`, or, when that path has characters the typed line must not carry, a
 * directory under the temp dir named after a hash of the state dir. */
export function runsDirFor(stateDir: string, sub = 'runs'): string {
  const preferred = join(resolve(stateDir), sub);
  if (SAFE_DIR_RE.test(preferred)) return preferred;
  const base = SAFE_DIR_RE.test(resolve(tmpdir())) ? resolve(tmpdir()) : '/tmp';
  const hash = createHash('sha256').update(resolve(stateDir)).digest('hex').slice(0, 16);
  return join(base, `terminal-mcp-${process.getuid?.() ?? 0}-${hash}-${sub}`);
}

function ensurePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const st = lstatSync(dir);
  if (!st.isDirectory() || (process.getuid !== undefined && st.uid !== process.getuid()) || (st.mode & 0o077) !== 0) {
    throw new Error(`run channel directory ${dir} is not a private directory of this user`);
  }
}

const mkfifo = (paths: readonly string[]) =>
  new Promise<void>((ok, fail) => execFile('mkfifo', ['-m', '600', '--', ...paths], { timeout: 10_000 }, (err) => (err ? fail(err) : ok())));

const isFifo = (path: string) => lstatSync(path, { throwIfNoEntry: false })?.isFIFO() === true;

/** `sub`: the directory under the state dir (each user of pairs has its own: a first
 * take removes every pair it finds there). */
export function openRunFifos(stateDir: string, sub = 'runs'): RunFifos {
  const dir = runsDirFor(stateDir, sub);
  let ready = false;
  let closed = false;
  const pool: RunFifoPair[] = [];
  let refilling: Promise<void> | null = null;
  let refillTimer: NodeJS.Timeout | undefined;

  const pairOf = (id: string): RunFifoPair => ({ id, statusPath: join(dir, `${id}.status`), ackPath: join(dir, `${id}.ack`) });
  const remove = (pair: RunFifoPair) => {
    rmSync(pair.statusPath, { force: true });
    rmSync(pair.ackPath, { force: true });
  };
  /** The first time: the directory, and nothing left in it by an earlier broker (its runs
   * are over for us: their shells find no FIFO and go on at once). */
  const prepare = () => {
    if (ready) return;
    ensurePrivateDir(dir);
    for (const name of readdirSync(dir)) if (NAME_RE.test(name)) rmSync(join(dir, name), { force: true });
    ready = true;
  };
  const refill = (): Promise<void> =>
    (refilling ??= (async () => {
      prepare();
      const pairs = Array.from({ length: POOL_SIZE - pool.length }, () => pairOf(randomBytes(16).toString('hex')));
      await mkfifo(pairs.flatMap((p) => [p.statusPath, p.ackPath])).catch(() => undefined);
      for (const p of pairs) {
        if (!closed && isFifo(p.statusPath) && isFifo(p.ackPath)) pool.push(p);
        else remove(p);
      }
    })().finally(() => {
      refilling = null;
    }));

  return {
    dir,
    async take() {
      for (let attempt = 0; pool.length === 0; attempt++) {
        if (closed) throw new Error('run channels are closed');
        if (attempt >= 3) throw new Error('mkfifo did not make the run channel FIFOs');
        await refill();
      }
      const pair = pool.shift() as RunFifoPair;
      if (pool.length < REFILL_BELOW && refillTimer === undefined && refilling === null) {
        refillTimer = setTimeout(() => {
          refillTimer = undefined;
          if (!closed) void refill().catch(() => undefined);
        }, REFILL_DELAY_MS);
        refillTimer.unref();
      }
      return pair;
    },
    openStatus(path) {
      const fd = openSync(path, constants.O_RDWR | constants.O_NONBLOCK | constants.O_NOFOLLOW);
      return new Socket({ fd, readable: true, writable: false });
    },
    ack(path) {
      let fd: number;
      try {
        // ENXIO when nobody holds it open for reading: the shell gave up, or never came.
        fd = openSync(path, constants.O_WRONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
      } catch {
        return false;
      }
      try {
        writeSync(fd, '\n');
        return true;
      } catch {
        return false;
      } finally {
        closeSync(fd);
      }
    },
    remove,
    async close() {
      closed = true;
      clearTimeout(refillTimer);
      // A refill under way removes what it makes once it sees `closed`.
      await refilling?.catch(() => undefined);
      for (const p of pool.splice(0)) remove(p);
    },
  };
}
