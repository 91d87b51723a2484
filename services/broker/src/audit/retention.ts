/**
 * Audit retention: input_audit and read_audit are cut to `audit.retention` (an age and a
 * row cap per table) at broker start and then every `prune_interval_minutes`, so a busy or
 * abusive client cannot grow audit.db without bound. Each run is one transaction that also
 * records, in audit_prunes, how many rows of which table it removed, as `broker:retention`:
 * a shortened log says so itself. The timer is unref'd and cheap (indexed deletes); a
 * failed run is logged and retried at the next tick, never stopping the broker.
 */
import type { Logger } from 'pino';
import type { BrokerConfig } from '../config/schema.js';
import type { AuditTable } from '../effects/store/audit-store.js';
import type { StoresOf } from '../capabilities.js';

export const RETENTION_ACTOR = 'broker:retention';

const DAY_MS = 24 * 3600 * 1000;

export interface RetentionDeps {
  stores: StoresOf<'audit'>;
  config: Pick<BrokerConfig, 'audit'>;
  log: Logger;
}

/** One retention run; null when audit.db could not be pruned (logged). */
export function pruneAuditLogs(deps: RetentionDeps, now: number = Date.now()): Record<AuditTable, number> | null {
  const { max_age_days: maxAgeDays, max_rows: maxRows } = deps.config.audit.retention;
  try {
    const pruned = deps.stores.audit.prune({ olderThan: now - maxAgeDays * DAY_MS, maxRows }, RETENTION_ACTOR, now);
    if (pruned.input_audit > 0 || pruned.read_audit > 0) {
      deps.log.info({ event: 'audit.pruned', actor: RETENTION_ACTOR, ...pruned, maxAgeDays, maxRows }, 'old audit rows pruned');
    }
    return pruned;
  } catch (err) {
    deps.log.error({ event: 'audit.prune_failed', err: (err as Error).message }, 'audit retention could not prune audit.db');
    return null;
  }
}

export interface AuditRetention {
  stop(): void;
}

/** Prunes now, then every `prune_interval_minutes` until stopped. */
export function startAuditRetention(deps: RetentionDeps): AuditRetention {
  pruneAuditLogs(deps);
  const timer = setInterval(() => pruneAuditLogs(deps), deps.config.audit.retention.prune_interval_minutes * 60_000);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
