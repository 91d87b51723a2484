// Guards audit retention on a real audit.db: both logs are cut to the configured age and row cap (PENDING attempts kept, idempotency keys of pruned attempts dropped), recording in the same transaction how many rows of which table it removed as broker:retention, at start and on a timer.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { configSchema } from '../config/schema.js';
import { type InputAttempt, type ReadRecord } from '../effects/store/audit-store.js';
import { openStoreSet, type StoreSet } from '../effects/store/store-set.js';
import { pruneAuditLogs, RETENTION_ACTOR, startAuditRetention } from './retention.js';

const DAY = 24 * 3600 * 1000;
const NOW = Date.UTC(2026, 5, 1);

let root: string;
let stores: StoreSet;
const log = pino({ level: 'silent' });

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'tmcp-retention-'));
  stores = openStoreSet(join(root, 'state'));
});
afterEach(() => {
  stores.close();
  rmSync(root, { recursive: true, force: true });
});

const configWith = (retention: Record<string, number>) => configSchema.parse({ audit: { retention }, log_level: 'silent' });
const audit = () => stores.audit;

function attempt(at: number, decision: InputAttempt['decision'] = 'SENT'): InputAttempt {
  return {
    at, role: 'gateway', actor: 'gateway:test', tool: 'terminal_send_text', sessionName: 'agent-a', binding: null, serverPid: 1, sessionId: '$1',
    sessionCreated: 1, paneId: '%1', panePid: 2, decision, errorCode: null, textLength: 1, textHmac: 'h', preview: 'x', keys: null,
    finishedAt: decision === 'PENDING' ? null : at, receipt: null, receiptJson: null,
  };
}
const read = (at: number): ReadRecord => ({ at, role: 'observer', actor: 'observer:test', tool: 'terminal_tail', sessionName: 'agent-a', sessionId: '$1', paneId: '%1', lineCount: 3, errorCode: null });

describe('audit retention', () => {
  it('prunes rows older than max_age_days from both logs, keeps PENDING attempts, and records the prune', () => {
    const old = NOW - 31 * DAY;
    const oldIds = [audit().insertAttempt(attempt(old)), audit().insertAttempt(attempt(old, 'BLOCKED'))];
    const pending = audit().insertAttempt(attempt(old, 'PENDING'));
    const fresh = audit().insertAttempt(attempt(NOW - DAY));
    // An old task attempt's idempotency key must not block pruning it.
    audit().claimIdempotencyKey('gateway:test', 'k1', 'fp', 0, attempt(old));
    audit().insertReads([read(old), read(old), read(old), read(NOW - DAY)]);

    const pruned = pruneAuditLogs({ stores, config: configWith({ max_age_days: 30 }), log }, NOW);
    expect(pruned).toEqual({ input_audit: 3, read_audit: 3 });
    for (const id of oldIds) expect(audit().getAttempt(id)).toBeUndefined();
    expect(audit().getAttempt(pending)?.decision).toBe('PENDING');
    expect(audit().getAttempt(fresh)).toBeDefined();
    expect(audit().countReads()).toBe(1);
    expect(audit().lookupIdempotencyKey('gateway:test', 'k1', 0)).toBeUndefined();

    const records = audit().listPrunes(10);
    expect(records.map((r) => [r.actor, r.table, r.rowsPruned, r.olderThan])).toEqual([
      [RETENTION_ACTOR, 'read_audit', 3, NOW - 30 * DAY],
      [RETENTION_ACTOR, 'input_audit', 3, NOW - 30 * DAY],
    ]);
    // Nothing left to prune: nothing recorded.
    expect(pruneAuditLogs({ stores, config: configWith({ max_age_days: 30 }), log }, NOW)).toEqual({ input_audit: 0, read_audit: 0 });
    expect(audit().listPrunes(10)).toHaveLength(2);
  });

  it('keeps at most max_rows per table, the newest', () => {
    for (let i = 0; i < 250; i++) audit().insertAttempt(attempt(NOW - i));
    audit().insertReads(Array.from({ length: 130 }, (_, i) => read(NOW - i)));
    const newestAttempt = audit().list({ limit: 1 })[0]!.id;

    expect(pruneAuditLogs({ stores, config: configWith({ max_rows: 100 }), log }, NOW)).toEqual({ input_audit: 150, read_audit: 30 });
    expect(audit().countAttempts()).toBe(100);
    expect(audit().countReads()).toBe(100);
    const kept = audit().list({ limit: 1000 }).map((a) => a.id);
    expect(kept[0]).toBe(newestAttempt);
    expect(Math.min(...kept)).toBe(newestAttempt - 99);
    expect(audit().listPrunes(10).map((r) => [r.table, r.rowsPruned, r.maxRows])).toEqual([
      ['read_audit', 30, 100],
      ['input_audit', 150, 100],
    ]);
  });

  it('changes nothing when it cannot take the write lock: no rows removed, no prune recorded', () => {
    audit().insertReads([read(NOW - 400 * DAY)]);
    // Another process holds audit.db's write lock (an operator's sqlite3 shell).
    const blocker = new Database(join(stores.stateDir, 'audit.db'));
    blocker.exec('BEGIN IMMEDIATE');
    try {
      expect(pruneAuditLogs({ stores, config: configWith({}), log }, NOW)).toBeNull();
    } finally {
      blocker.exec('ROLLBACK');
      blocker.close();
    }
    expect(audit().countReads()).toBe(1);
    expect(audit().listPrunes(10)).toEqual([]);
  });

  it('prunes at start and then on its interval', () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'Date'] });
    try {
      vi.setSystemTime(NOW);
      audit().insertReads([read(NOW - 100 * DAY)]);
      const retention = startAuditRetention({ stores, config: configWith({ max_age_days: 90, prune_interval_minutes: 5 }), log });
      expect(audit().countReads()).toBe(0);
      audit().insertReads([read(NOW - 100 * DAY)]);
      vi.advanceTimersByTime(5 * 60_000);
      expect(audit().countReads()).toBe(0);
      expect(audit().listPrunes(10)).toHaveLength(2);
      retention.stop();
      audit().insertReads([read(NOW - 100 * DAY)]);
      vi.advanceTimersByTime(10 * 60_000);
      expect(audit().countReads()).toBe(1);
    } finally {
      vi.useRealTimers();
    }
  });
});
