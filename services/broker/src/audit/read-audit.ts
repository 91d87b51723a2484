/**
 * The cheap audit of pane-content reads (tail, capture, status, batch inspect, input
 * context, bound reads): actor, tool, target, line count. Reads must not wait on the
 * audit log, so records are queued in memory and written in one transaction every
 * FLUSH_MS (or at MAX_QUEUE records). Deliberate trade-off: a broker killed outright loses
 * at most the last FLUSH_MS of read records, and a failing audit.db drops read records
 * (logged) instead of failing reads. Input attempts are NOT recorded this way: they are
 * written synchronously before acting, and fail closed.
 */
import type { Logger } from 'pino';
import type { AuditStore, ReadRecord } from '../effects/store/audit-store.js';

export const READ_AUDIT_FLUSH_MS = 200;
const MAX_QUEUE = 500;

export interface ReadAuditRecorder {
  record(record: ReadRecord): void;
  /** Writes everything queued now (also called on broker stop). */
  flush(): void;
}

export function createReadAuditRecorder(store: AuditStore, log: Logger): ReadAuditRecorder {
  let queue: ReadRecord[] = [];
  let timer: NodeJS.Timeout | undefined;
  const flush = () => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    if (queue.length === 0) return;
    const batch = queue;
    queue = [];
    try {
      store.insertReads(batch);
    } catch (err) {
      log.error({ event: 'audit.read_write_failed', dropped: batch.length, err: (err as Error).message }, 'read audit records could not be written');
    }
  };
  return {
    record(record) {
      queue.push(record);
      if (queue.length >= MAX_QUEUE) flush();
      else if (timer === undefined) {
        timer = setTimeout(flush, READ_AUDIT_FLUSH_MS);
        timer.unref();
      }
    },
    flush,
  };
}
