/** The dashboard's read-audit summary: who read which session how much, per UTC day.
 * Queued read records are flushed first, so a read just made shows up. */
import { AppError, READ_SUMMARY_LIMITS, type ReadSummaryInput, type ReadSummaryOutput } from '@terminal-mcp/contract';
import type { Logger } from 'pino';
import type { AuditStore } from '../effects/store/audit-store.js';

const DAY_MS = 86_400_000;

export function summarizeReadAudit(deps: { input: { reads: { flush(): void }; audit: Pick<AuditStore, 'summarizeReads'> }; log: Logger }, input: ReadSummaryInput, now = Date.now()): ReadSummaryOutput {
  const days = input.days ?? READ_SUMMARY_LIMITS.daysDefault;
  const limit = input.limit ?? READ_SUMMARY_LIMITS.rowsDefault;
  // From the start of the UTC day `days - 1` days ago: whole days only.
  const since = Math.floor(now / DAY_MS) * DAY_MS - (days - 1) * DAY_MS;
  const services = deps.input;
  try {
    services.reads.flush();
    const rows = services.audit.summarizeReads(since, limit + 1);
    return {
      rows: rows.slice(0, limit).map((r) => ({ day: r.day, actor: r.actor, session: r.sessionName, reads: r.reads, lines: r.lines, errors: r.errors, last_at: new Date(r.lastAt).toISOString() })),
      truncated: rows.length > limit,
    };
  } catch (err) {
    deps.log.error({ event: 'audit.read_summary_failed', err: (err as Error).message }, 'read audit could not be summarised');
    throw new AppError('AUDIT_UNAVAILABLE', 'the audit log could not be read');
  }
}
