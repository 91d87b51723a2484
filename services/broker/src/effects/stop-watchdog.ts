/**
 * The last bound on a broker's stop, one that holds even when the event loop does not
 * turn: a synchronous step (a store's checkpoint on a loaded disk, a write that blocks)
 * keeps every timer of the main thread from firing, and so the stop deadline in
 * bin/main.ts with it (issue 44: an overdue timer due at 4 s fired at 10-13.7 s under
 * load). This runs on a worker thread with its own loop: armed when the stop begins, told
 * each step as it starts, and at its deadline it closes the input attempts still PENDING
 * (audit.db, its own connection), says which step was pending on stderr
 * (waiting at most 200 ms for that write) and SIGKILLs the process. A stop that ends first never
 * hears from it (it is unref'd and dies with the process).
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { RECOVER_PENDING_SQL } from './store/audit-store.js';

export interface StopWatchdog {
  /** The step the stop is in now, named in the watchdog's last line. */
  step(name: string): void;
}

// Plain CommonJS for an eval'd worker: a few lines, no import of our own modules.
const WATCHDOG_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const fs = require('node:fs');
let step = 'starting';
const LINE_WAIT_MS = 200;
parentPort.on('message', (m) => { if (typeof m === 'string') step = m.slice(0, 200); });
// Loaded now, while nothing is late yet.
let Database = null;
try { if (workerData.auditDb) Database = require(workerData.sqliteModule); } catch {}
setTimeout(() => {
  // First the input attempts in flight: PENDING becomes DELIVERY_UNKNOWN over a connection
  // of our own (a main thread stuck inside a write transaction makes this give up at once).
  let closed = null;
  if (Database) {
    try {
      const db = new Database(workerData.auditDb, { fileMustExist: true, timeout: 100 });
      try { closed = db.prepare(workerData.recoverSql).run(Date.now()).changes; } finally { db.close(); }
    } catch {}
  }
  const line = JSON.stringify({ level: 60, time: Date.now(), pid: workerData.pid, name: 'terminal-mcp-broker', event: 'broker.stop_killed', step, deadlineMs: workerData.ms, inputClosedAsDeliveryUnknown: closed, msg: 'the stop did not end and the event loop did not turn; killing the broker' }) + '\\n';
  const kill = () => process.kill(workerData.pid, 'SIGKILL');
  // Written on the thread pool, never here: a reader that stopped reading may block the
  // write (stderr is often a socket), and the kill must not wait for it beyond a moment.
  setTimeout(kill, LINE_WAIT_MS);
  fs.write(2, line, kill);
}, Math.max(0, workerData.at - Date.now()));
`;

/** Starts the watchdog: the process is SIGKILLed `ms` (+ up to 200 ms for its last line)
 * from now unless it has exited; before that, the PENDING attempts in `auditDb` (when
 * given) are closed as DELIVERY_UNKNOWN. */
export function armStopWatchdog(ms: number, auditDb?: string): StopWatchdog {
  const sqliteModule = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(WATCHDOG_SOURCE, {
    eval: true,
    workerData: { pid: process.pid, ms, at: Date.now() + ms, auditDb, sqliteModule, recoverSql: RECOVER_PENDING_SQL },
    resourceLimits: { maxOldGenerationSizeMb: 16, maxYoungGenerationSizeMb: 1 },
  });
  worker.unref();
  // A worker that cannot start leaves the main thread's own deadline as the bound.
  worker.on('error', () => undefined);
  return { step: (name) => worker.postMessage(name) };
}
