/**
 * Where every service's JSON log lines go: stderr (fd 2), written without ever blocking
 * the event loop or the exit, and given up for good when the reader is gone.
 *
 * Why not pino's own destination (sonic-boom, `sync: false`): at process exit it flushes
 * synchronously, and on EPIPE its flush loops forever (write, EPIPE, sleep 100 ms, write
 * again), so a service whose stderr reader went away while it stopped never exited. Seen
 * as a broker hung for 75 minutes after SIGTERM, its tmux control client an unreaped zombie
 * because the main thread never returned to the event loop (issue 53, reproduced with
 * strace: an endless `write(2, ...) = -1 EPIPE` every 100 ms). Here:
 *
 *  - lines are queued (bounded; beyond the cap they are counted, not kept) and written by
 *    one asynchronous `fs.write` at a time, so a slow or stopped reader never blocks;
 *  - any write error but EAGAIN (EPIPE, EBADF, EIO, ...) means the destination is gone:
 *    the queue is dropped and every later line is discarded at once, never retried;
 *  - `drain(ms)` waits, at most `ms`, for what is queued to be written: a stop drains
 *    before it exits, so its last lines reach a pipe or the journal's socket;
 *  - at exit, what is still queued is written with one synchronous attempt only when fd 2
 *    is a regular file or a terminal (never a pipe or socket, whose reader may be stopped
 *    and would block the exit), and any error ends it.
 *
 * Node only (fs), and its own subpath, `@terminal-mcp/http-guard/log-sink`: the broker
 * takes this alone from the package.
 */
import { fstatSync, write, writeSync } from 'node:fs';

export interface LogSink {
  /** pino's stream interface: one serialized line. */
  write(line: string): void;
  /** Resolves when everything queued is written, the destination is gone, or `ms` passed. */
  drain(ms: number): Promise<void>;
  /** The destination failed for good (EPIPE, EBADF, ...): lines are discarded. */
  readonly gone: boolean;
  /** Lines discarded because the queue was full or the destination gone. */
  readonly dropped: number;
}

export interface LogSinkOptions {
  fd?: number;
  /** Queue cap in bytes (default 1 MiB): a reader that stops reading costs no more. */
  maxQueuedBytes?: number;
}

/** How soon a write that met EAGAIN (a non-blocking pipe that is full) is tried again. */
const EAGAIN_RETRY_MS = 50;

export function isLogSink(stream: unknown): stream is LogSink {
  return typeof stream === 'object' && stream !== null && typeof (stream as LogSink).drain === 'function' && typeof (stream as LogSink).write === 'function';
}

export function createLogSink(options: LogSinkOptions = {}): LogSink {
  const fd = options.fd ?? 2;
  const maxQueuedBytes = options.maxQueuedBytes ?? 1024 * 1024;
  let queue: Buffer[] = [];
  let queuedBytes = 0;
  let writing = false;
  let gone = false;
  let dropped = 0;
  let idle: (() => void)[] = [];

  const settle = () => {
    if (writing && !gone) return;
    if (queue.length > 0 && !gone) return;
    const waiters = idle;
    idle = [];
    for (const w of waiters) w();
  };
  const giveUp = () => {
    gone = true;
    dropped += queue.length;
    queue = [];
    queuedBytes = 0;
    writing = false;
    settle();
  };
  const pump = () => {
    if (writing || gone || queue.length === 0) return;
    const chunk = queue.length === 1 ? queue[0]! : Buffer.concat(queue);
    queue = [];
    queuedBytes = 0;
    writing = true;
    write(fd, chunk, 0, chunk.length, null, (err, written) => {
      if (gone) return;
      writing = false;
      if (err) {
        if (err.code !== 'EAGAIN') return giveUp();
        queue.unshift(chunk);
        queuedBytes += chunk.length;
        setTimeout(pump, EAGAIN_RETRY_MS).unref();
        return;
      }
      if (written < chunk.length) {
        const rest = chunk.subarray(written);
        queue.unshift(rest);
        queuedBytes += rest.length;
      }
      pump();
      settle();
    });
  };
  // The last lines of a process that exits without a drain (a crash, process.exit
  // elsewhere): one attempt, only where a write cannot block. Registered at the first
  // line, so the many silent loggers of a test process add no listener.
  let exitHook = false;
  const onExit = () => {
    if (gone || writing || queue.length === 0) return;
    try {
      const stat = fstatSync(fd);
      if (!stat.isFile() && !stat.isCharacterDevice()) return;
      writeSync(fd, Buffer.concat(queue));
    } catch {
      // Nowhere left to say it.
    }
  };

  return {
    write(line: string) {
      if (gone) {
        dropped++;
        return;
      }
      const buf = Buffer.from(line, 'utf8');
      if (queuedBytes + buf.length > maxQueuedBytes) {
        dropped++;
        return;
      }
      queue.push(buf);
      queuedBytes += buf.length;
      if (!exitHook) {
        exitHook = true;
        process.once('exit', onExit);
      }
      pump();
    },
    drain(ms: number) {
      if (gone || (!writing && queue.length === 0)) return Promise.resolve();
      return new Promise<void>((resolve) => {
        const timer = setTimeout(done, ms);
        function done() {
          clearTimeout(timer);
          idle = idle.filter((w) => w !== done);
          resolve();
        }
        idle.push(done);
      });
    },
    get gone() {
      return gone;
    },
    get dropped() {
      return dropped;
    },
  };
}
