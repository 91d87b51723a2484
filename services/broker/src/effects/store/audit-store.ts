/**
 * audit.db: every input attempt, written BEFORE anything is sent (as PENDING, or directly
 * as BLOCKED / DRY_RUN when nothing will be sent), then updated with its outcome; the
 * idempotency keys of terminal_send_task, claimed in the same transaction as the attempt
 * row; and a cheaper log of pane-content reads.
 *
 * The text itself is never stored: its length, a keyed HMAC-SHA256 and a redacted preview
 * of at most 120 characters. Times are integer milliseconds since the epoch. A PENDING row
 * left by a broker that died mid-send becomes DELIVERY_UNKNOWN at the next start
 * (`recoverPending`): nobody can tell whether its bytes reached the pane, and nothing is
 * ever re-sent.
 *
 * Retention (`prune`): both logs are cut to an age and a row cap in one transaction that
 * also records what it removed in `audit_prunes`, so a shortened log says so itself.
 */
import { AppError, type AuditDecision } from '@terminal-mcp/contract';
import type { SqliteDatabase, StoreDefinition } from './database.js';

const DECISIONS_V1 = "('PENDING', 'SENT', 'BLOCKED', 'DRY_RUN', 'FAILED', 'DELIVERY_UNKNOWN')";
/** v4 adds QUEUED (review mode). */
const DECISIONS = "('PENDING', 'SENT', 'BLOCKED', 'DRY_RUN', 'FAILED', 'DELIVERY_UNKNOWN', 'QUEUED')";

export const auditStoreDefinition: StoreDefinition = {
  name: 'audit',
  migrations: [
    (db) => {
      db.exec(`CREATE TABLE input_audit (
        id INTEGER PRIMARY KEY,
        at INTEGER NOT NULL,
        finished_at INTEGER,
        role TEXT NOT NULL,
        actor TEXT NOT NULL,
        tool TEXT NOT NULL,
        session_name TEXT,
        binding TEXT,
        server_pid INTEGER,
        session_id TEXT,
        session_created INTEGER,
        pane_id TEXT,
        pane_pid INTEGER,
        decision TEXT NOT NULL CHECK (decision IN ${DECISIONS_V1}),
        error_code TEXT,
        text_length INTEGER,
        text_hmac TEXT,
        preview TEXT,
        keys TEXT,
        receipt TEXT,
        receipt_json TEXT
      ) STRICT`);
      db.exec('CREATE INDEX input_audit_by_session ON input_audit(session_name, id)');
      db.exec('CREATE INDEX input_audit_by_binding ON input_audit(binding, id)');
      db.exec('CREATE INDEX input_audit_by_actor ON input_audit(actor, id)');
      db.exec("CREATE INDEX input_audit_pending ON input_audit(decision) WHERE decision = 'PENDING'");
      db.exec(`CREATE TABLE task_idempotency (
        scope TEXT NOT NULL,
        key TEXT NOT NULL,
        fingerprint TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        audit_id INTEGER NOT NULL REFERENCES input_audit(id),
        PRIMARY KEY (scope, key)
      ) STRICT`);
      db.exec(`CREATE TABLE read_audit (
        id INTEGER PRIMARY KEY,
        at INTEGER NOT NULL,
        role TEXT NOT NULL,
        actor TEXT NOT NULL,
        tool TEXT NOT NULL,
        session_name TEXT,
        session_id TEXT,
        pane_id TEXT,
        line_count INTEGER,
        error_code TEXT
      ) STRICT`);
    },
    // v2: source reads (observer) name a project and a path instead of a session.
    (db) => {
      db.exec('ALTER TABLE read_audit ADD COLUMN project TEXT');
      db.exec('ALTER TABLE read_audit ADD COLUMN path TEXT');
    },
    // v3: retention. Pruning by age uses `at`; each prune leaves a row in audit_prunes.
    (db) => {
      db.exec('CREATE INDEX input_audit_by_at ON input_audit(at)');
      db.exec('CREATE INDEX read_audit_by_at ON read_audit(at)');
      db.exec(`CREATE TABLE audit_prunes (
        id INTEGER PRIMARY KEY,
        at INTEGER NOT NULL,
        actor TEXT NOT NULL,
        table_name TEXT NOT NULL CHECK (table_name IN ('input_audit', 'read_audit')),
        rows_pruned INTEGER NOT NULL,
        older_than INTEGER NOT NULL,
        max_rows INTEGER NOT NULL
      ) STRICT`);
    },
    // v4: review mode's QUEUED decision. SQLite cannot change a CHECK in place, so the
    // table is rebuilt (same columns, same ids); task_idempotency's rows, which point
    // at it, are set aside and put back so no foreign key ever dangles.
    (db) => {
      const columns = (db.prepare("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'input_audit'").get() as { sql: string }).sql;
      const v4 = columns.replace('CREATE TABLE input_audit', 'CREATE TABLE input_audit_v4').replace(/CHECK \(decision IN \([^)]*\)\)/, `CHECK (decision IN ${DECISIONS})`);
      if (!v4.includes("'QUEUED'")) throw new Error('audit v4: the decision CHECK was not found');
      db.exec(v4);
      db.exec('INSERT INTO input_audit_v4 SELECT * FROM input_audit');
      db.exec('CREATE TEMP TABLE idem_v4 AS SELECT * FROM task_idempotency');
      db.exec('DELETE FROM task_idempotency');
      db.exec('DROP TABLE input_audit');
      db.exec('ALTER TABLE input_audit_v4 RENAME TO input_audit');
      db.exec('INSERT INTO task_idempotency SELECT * FROM temp.idem_v4');
      db.exec('DROP TABLE temp.idem_v4');
      db.exec('CREATE INDEX input_audit_by_session ON input_audit(session_name, id)');
      db.exec('CREATE INDEX input_audit_by_binding ON input_audit(binding, id)');
      db.exec('CREATE INDEX input_audit_by_actor ON input_audit(actor, id)');
      db.exec("CREATE INDEX input_audit_pending ON input_audit(decision) WHERE decision = 'PENDING'");
      db.exec('CREATE INDEX input_audit_by_at ON input_audit(at)');
    },
  ],
};

export interface InputAttempt {
  at: number;
  role: string;
  actor: string;
  tool: string;
  sessionName: string | null;
  binding: string | null;
  serverPid: number | null;
  sessionId: string | null;
  sessionCreated: number | null;
  paneId: string | null;
  panePid: number | null;
  decision: AuditDecision;
  errorCode: string | null;
  textLength: number | null;
  textHmac: string | null;
  preview: string | null;
  keys: readonly string[] | null;
  /** Final rows (BLOCKED, DRY_RUN) are written finished. */
  finishedAt: number | null;
  receipt: string | null;
  receiptJson: string | null;
}

export interface AttemptOutcome {
  decision: AuditDecision;
  errorCode: string | null;
  finishedAt: number;
  receipt?: string | null;
  receiptJson?: string | null;
}

export interface StoredAttempt extends InputAttempt {
  id: number;
}

export interface ReadRecord {
  at: number;
  role: string;
  actor: string;
  tool: string;
  sessionName: string | null;
  sessionId: string | null;
  paneId: string | null;
  lineCount: number | null;
  errorCode: string | null;
  /** Source reads: the configured project name and the repo-relative path asked for. */
  project?: string | null;
  path?: string | null;
}

export interface AuditFilter {
  sessionName?: string;
  binding?: string;
  actor?: string;
  decision?: AuditDecision;
  since?: number;
  until?: number;
  /** Only rows with a smaller id (the page cursor). */
  beforeId?: number;
  limit: number;
}

/** What one retention run may keep: rows at or after `olderThan` (ms), at most `maxRows`
 * per table, newest first. */
export interface RetentionLimits {
  olderThan: number;
  maxRows: number;
}

/** One table's prune, as recorded in audit_prunes. */
export interface PruneRecord {
  id: number;
  at: number;
  actor: string;
  table: AuditTable;
  rowsPruned: number;
  olderThan: number;
  maxRows: number;
}

export const AUDIT_TABLES = ['input_audit', 'read_audit'] as const;
export type AuditTable = (typeof AUDIT_TABLES)[number];

/** One group of the read audit: reads by one actor of one session on one UTC day. */
export interface ReadSummaryRow {
  day: string;
  actor: string;
  sessionName: string | null;
  reads: number;
  lines: number;
  errors: number;
  lastAt: number;
}

export type IdempotentClaim =
  | { kind: 'claimed'; auditId: number }
  | { kind: 'existing'; fingerprint: string; attempt: StoredAttempt };

/** PENDING attempts become DELIVERY_UNKNOWN (parameter: finished_at). Also run by the stop
 * watchdog (effects/stop-watchdog.ts) over its own connection, right before it kills a
 * broker whose event loop no longer turns. */
export const RECOVER_PENDING_SQL =
  "UPDATE input_audit SET decision = 'DELIVERY_UNKNOWN', finished_at = ?, receipt = CASE WHEN tool = 'terminal_send_task' THEN 'DELIVERY_UNKNOWN' ELSE receipt END WHERE decision = 'PENDING'";

export interface AuditStore {
  insertAttempt(attempt: InputAttempt): number;
  finishAttempt(id: number, outcome: AttemptOutcome): void;
  getAttempt(id: number): StoredAttempt | undefined;
  /** PENDING rows become DELIVERY_UNKNOWN; returns how many. Run at broker start and
   * at its stop. */
  recoverPending(now: number): number;
  /** How many attempts are PENDING now (in flight). */
  countPending(): number;
  /** The broker stops: from now on no attempt may begin (a PENDING row, with or without
   * an idempotency claim, is refused BROKER_UNAVAILABLE: nothing is sent), so the PENDING
   * rows the stop closes are all there will be. Finished rows are still written. */
  refuseNewAttempts(): void;
  /** The attempt that claimed (scope, key) at or after `freshSince`, if any. */
  lookupIdempotencyKey(scope: string, key: string, freshSince: number): { fingerprint: string; attempt: StoredAttempt } | undefined;
  /**
   * One transaction: if (scope, key) was claimed at or after `freshSince`, returns that
   * attempt; otherwise inserts `attempt` and claims the key for it.
   */
  claimIdempotencyKey(scope: string, key: string, fingerprint: string, freshSince: number, attempt: InputAttempt): IdempotentClaim;
  /** Frees a key whose attempt sent nothing (blocked after the claim), in the same
   * transaction as recording that outcome. */
  finishAndReleaseKey(id: number, outcome: AttemptOutcome, scope: string, key: string): void;
  list(filter: AuditFilter): StoredAttempt[];
  insertReads(records: readonly ReadRecord[]): void;
  countReads(): number;
  /** Reads at or after `since`, grouped by UTC day, actor and session; newest day first. */
  summarizeReads(since: number, limit: number): ReadSummaryRow[];
  /** Drops idempotency keys older than `olderThan`. */
  pruneIdempotency(olderThan: number): number;
  /** Cuts input_audit and read_audit to `limits` (PENDING attempts are kept) and, in the
   * same transaction, records each table that lost rows in audit_prunes under `actor`.
   * Returns the rows removed per table. */
  prune(limits: RetentionLimits, actor: string, now: number): Record<AuditTable, number>;
  /** The prune records, newest first. */
  listPrunes(limit: number): PruneRecord[];
  countAttempts(): number;
}

interface AttemptRow {
  id: number;
  at: number;
  finished_at: number | null;
  role: string;
  actor: string;
  tool: string;
  session_name: string | null;
  binding: string | null;
  server_pid: number | null;
  session_id: string | null;
  session_created: number | null;
  pane_id: string | null;
  pane_pid: number | null;
  decision: AuditDecision;
  error_code: string | null;
  text_length: number | null;
  text_hmac: string | null;
  preview: string | null;
  keys: string | null;
  receipt: string | null;
  receipt_json: string | null;
}

const ATTEMPT_COLUMNS =
  'id, at, finished_at, role, actor, tool, session_name, binding, server_pid, session_id, session_created, pane_id, pane_pid, decision, error_code, text_length, text_hmac, preview, keys, receipt, receipt_json';

function parseKeys(text: string | null): string[] | null {
  if (text === null) return null;
  try {
    const parsed: unknown = JSON.parse(text);
    return Array.isArray(parsed) ? parsed.map(String) : null;
  } catch {
    return null;
  }
}

const toAttempt = (r: AttemptRow): StoredAttempt => ({
  id: r.id,
  at: r.at,
  finishedAt: r.finished_at,
  role: r.role,
  actor: r.actor,
  tool: r.tool,
  sessionName: r.session_name,
  binding: r.binding,
  serverPid: r.server_pid,
  sessionId: r.session_id,
  sessionCreated: r.session_created,
  paneId: r.pane_id,
  panePid: r.pane_pid,
  decision: r.decision,
  errorCode: r.error_code,
  textLength: r.text_length,
  textHmac: r.text_hmac,
  preview: r.preview,
  keys: parseKeys(r.keys),
  receipt: r.receipt,
  receiptJson: r.receipt_json,
});

/** The store's operations over an open audit.db (statements prepared once; built once per broker by store-set.ts). */
export function auditStore(db: SqliteDatabase): AuditStore {
  // better-sqlite3 waits synchronously, blocking the broker's event loop: another process
  // holding audit.db's write lock (an operator's sqlite3 shell) may stall us for 1 s, not
  // the default 5 s, before the attempt is refused with AUDIT_UNAVAILABLE.
  db.pragma('busy_timeout = 1000');

  const q = {
    insert: db.prepare(
      `INSERT INTO input_audit (at, finished_at, role, actor, tool, session_name, binding, server_pid, session_id, session_created,
         pane_id, pane_pid, decision, error_code, text_length, text_hmac, preview, keys, receipt, receipt_json)
       VALUES (@at, @finishedAt, @role, @actor, @tool, @sessionName, @binding, @serverPid, @sessionId, @sessionCreated,
         @paneId, @panePid, @decision, @errorCode, @textLength, @textHmac, @preview, @keys, @receipt, @receiptJson)`,
    ),
    // A refused attempt keeps no preview of its text: one refused under the lease was
    // written PENDING, with a preview, before the refusal.
    finish: db.prepare<[string, string | null, number, string | null, string | null, string, number]>(
      `UPDATE input_audit SET decision = ?, error_code = ?, finished_at = ?, receipt = ?, receipt_json = ?,
         preview = CASE WHEN ? = 'BLOCKED' THEN NULL ELSE preview END WHERE id = ?`,
    ),
    get: db.prepare<[number], AttemptRow>(`SELECT ${ATTEMPT_COLUMNS} FROM input_audit WHERE id = ?`),
    countPending: db.prepare<[], { n: number }>("SELECT COUNT(*) AS n FROM input_audit WHERE decision = 'PENDING'"),
    recover: db.prepare<[number]>(RECOVER_PENDING_SQL),
    keyRow: db.prepare<[string, string], { fingerprint: string; created_at: number; audit_id: number }>(
      'SELECT fingerprint, created_at, audit_id FROM task_idempotency WHERE scope = ? AND key = ?',
    ),
    deleteKey: db.prepare<[string, string]>('DELETE FROM task_idempotency WHERE scope = ? AND key = ?'),
    deleteKeyFor: db.prepare<[string, string, number]>('DELETE FROM task_idempotency WHERE scope = ? AND key = ? AND audit_id = ?'),
    insertKey: db.prepare<[string, string, string, number, number]>(
      'INSERT INTO task_idempotency (scope, key, fingerprint, created_at, audit_id) VALUES (?, ?, ?, ?, ?)',
    ),
    pruneKeys: db.prepare<[number]>('DELETE FROM task_idempotency WHERE created_at < ?'),
    insertRead: db.prepare(
      `INSERT INTO read_audit (at, role, actor, tool, session_name, session_id, pane_id, line_count, error_code, project, path)
       VALUES (@at, @role, @actor, @tool, @sessionName, @sessionId, @paneId, @lineCount, @errorCode, @project, @path)`,
    ),
    countReads: db.prepare<[], { n: number }>('SELECT count(*) AS n FROM read_audit'),
    countAttempts: db.prepare<[], { n: number }>('SELECT count(*) AS n FROM input_audit'),
    // Keys of attempts about to be pruned go first (task_idempotency references them).
    pruneKeysOfOldAttempts: db.prepare<[number]>(
      "DELETE FROM task_idempotency WHERE audit_id IN (SELECT id FROM input_audit WHERE at < ? AND decision != 'PENDING')",
    ),
    pruneOldAttempts: db.prepare<[number]>("DELETE FROM input_audit WHERE at < ? AND decision != 'PENDING'"),
    // The id of the newest row past the cap: it and everything older goes.
    attemptCutoffId: db.prepare<[number], { id: number }>('SELECT id FROM input_audit ORDER BY id DESC LIMIT 1 OFFSET ?'),
    pruneKeysOfAttemptsUpTo: db.prepare<[number]>(
      "DELETE FROM task_idempotency WHERE audit_id IN (SELECT id FROM input_audit WHERE id <= ? AND decision != 'PENDING')",
    ),
    pruneAttemptsUpTo: db.prepare<[number]>("DELETE FROM input_audit WHERE id <= ? AND decision != 'PENDING'"),
    pruneOldReads: db.prepare<[number]>('DELETE FROM read_audit WHERE at < ?'),
    readCutoffId: db.prepare<[number], { id: number }>('SELECT id FROM read_audit ORDER BY id DESC LIMIT 1 OFFSET ?'),
    pruneReadsUpTo: db.prepare<[number]>('DELETE FROM read_audit WHERE id <= ?'),
    insertPrune: db.prepare<[number, string, string, number, number, number]>(
      'INSERT INTO audit_prunes (at, actor, table_name, rows_pruned, older_than, max_rows) VALUES (?, ?, ?, ?, ?, ?)',
    ),
    listPrunes: db.prepare<[number], { id: number; at: number; actor: string; table_name: AuditTable; rows_pruned: number; older_than: number; max_rows: number }>(
      'SELECT id, at, actor, table_name, rows_pruned, older_than, max_rows FROM audit_prunes ORDER BY id DESC LIMIT ?',
    ),
    summarizeReads: db.prepare<[number, number], { day: string; actor: string; session_name: string | null; reads: number; lines: number; errors: number; last_at: number }>(
      `SELECT date(at / 1000, 'unixepoch') AS day, actor, session_name, count(*) AS reads, coalesce(sum(line_count), 0) AS lines,
         sum(error_code IS NOT NULL) AS errors, max(at) AS last_at
       FROM read_audit WHERE at >= ? GROUP BY day, actor, session_name ORDER BY day DESC, reads DESC, actor, session_name LIMIT ?`,
    ),
  };

  const insertAttempt = (a: InputAttempt): number =>
    Number(q.insert.run({ ...a, keys: a.keys === null ? null : JSON.stringify(a.keys) }).lastInsertRowid);

  const finishAttempt = (id: number, o: AttemptOutcome): void => {
    q.finish.run(o.decision, o.errorCode, o.finishedAt, o.receipt ?? null, o.receiptJson ?? null, o.decision, id);
  };

  const claim = db.transaction((scope: string, key: string, fingerprint: string, freshSince: number, attempt: InputAttempt): IdempotentClaim => {
    const row = q.keyRow.get(scope, key);
    if (row && row.created_at >= freshSince) {
      const existing = q.get.get(row.audit_id);
      if (existing) return { kind: 'existing', fingerprint: row.fingerprint, attempt: toAttempt(existing) };
    }
    if (row) q.deleteKey.run(scope, key);
    const auditId = insertAttempt(attempt);
    q.insertKey.run(scope, key, fingerprint, attempt.at, auditId);
    return { kind: 'claimed', auditId };
  });

  const finishAndRelease = db.transaction((id: number, o: AttemptOutcome, scope: string, key: string) => {
    finishAttempt(id, o);
    q.deleteKeyFor.run(scope, key, id);
  });

  const insertReads = db.transaction((records: readonly ReadRecord[]) => {
    for (const r of records) q.insertRead.run({ ...r, project: r.project ?? null, path: r.path ?? null });
  });

  const prune = db.transaction((limits: RetentionLimits, actor: string, now: number): Record<AuditTable, number> => {
    q.pruneKeysOfOldAttempts.run(limits.olderThan);
    let attempts = q.pruneOldAttempts.run(limits.olderThan).changes;
    const attemptCut = q.attemptCutoffId.get(limits.maxRows);
    if (attemptCut) {
      q.pruneKeysOfAttemptsUpTo.run(attemptCut.id);
      attempts += q.pruneAttemptsUpTo.run(attemptCut.id).changes;
    }
    let reads = q.pruneOldReads.run(limits.olderThan).changes;
    const readCut = q.readCutoffId.get(limits.maxRows);
    if (readCut) reads += q.pruneReadsUpTo.run(readCut.id).changes;
    const pruned: Record<AuditTable, number> = { input_audit: attempts, read_audit: reads };
    for (const table of AUDIT_TABLES) {
      if (pruned[table] > 0) q.insertPrune.run(now, actor, table, pruned[table], limits.olderThan, limits.maxRows);
    }
    return pruned;
  });

  let refusing = false;
  const stopping = () => new AppError('BROKER_UNAVAILABLE', 'the broker is stopping: nothing was sent', 'Try again once the broker is back.');
  const store: AuditStore = {
    insertAttempt: (a) => {
      if (refusing && a.decision === 'PENDING') throw stopping();
      return insertAttempt(a);
    },
    refuseNewAttempts: () => {
      refusing = true;
    },
    finishAttempt,
    getAttempt: (id) => {
      const row = q.get.get(id);
      return row ? toAttempt(row) : undefined;
    },
    recoverPending: (now) => q.recover.run(now).changes,
    countPending: () => q.countPending.get()?.n ?? 0,
    // IMMEDIATE: the write lock is taken at BEGIN, so two claims of one key serialise.
    lookupIdempotencyKey(scope, key, freshSince) {
      const row = q.keyRow.get(scope, key);
      if (!row || row.created_at < freshSince) return undefined;
      const attempt = q.get.get(row.audit_id);
      return attempt ? { fingerprint: row.fingerprint, attempt: toAttempt(attempt) } : undefined;
    },
    claimIdempotencyKey: (scope, key, fingerprint, freshSince, attempt) => {
      if (refusing) throw stopping();
      return claim.immediate(scope, key, fingerprint, freshSince, attempt);
    },
    finishAndReleaseKey: (id, o, scope, key) => finishAndRelease.immediate(id, o, scope, key),
    list(filter) {
      const where: string[] = [];
      const params: (string | number)[] = [];
      if (filter.sessionName !== undefined) {
        where.push('session_name = ?');
        params.push(filter.sessionName);
      }
      if (filter.binding !== undefined) {
        where.push('binding = ?');
        params.push(filter.binding);
      }
      if (filter.actor !== undefined) {
        where.push('actor = ?');
        params.push(filter.actor);
      }
      if (filter.decision !== undefined) {
        where.push('decision = ?');
        params.push(filter.decision);
      }
      if (filter.since !== undefined) {
        where.push('at >= ?');
        params.push(filter.since);
      }
      if (filter.until !== undefined) {
        where.push('at < ?');
        params.push(filter.until);
      }
      if (filter.beforeId !== undefined) {
        where.push('id < ?');
        params.push(filter.beforeId);
      }
      // Only fixed column names and placeholders go into the SQL; values are bound.
      const sql = `SELECT ${ATTEMPT_COLUMNS} FROM input_audit ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY id DESC LIMIT ?`;
      return db
        .prepare<(string | number)[], AttemptRow>(sql)
        .all(...params, filter.limit)
        .map(toAttempt);
    },
    insertReads: (records) => {
      if (records.length > 0) insertReads(records);
    },
    countReads: () => q.countReads.get()!.n,
    summarizeReads: (since, limit) =>
      q.summarizeReads.all(since, limit).map((r) => ({ day: r.day, actor: r.actor, sessionName: r.session_name, reads: r.reads, lines: r.lines, errors: r.errors, lastAt: r.last_at })),
    pruneIdempotency: (olderThan) => q.pruneKeys.run(olderThan).changes,
    prune: (limits, actor, now) => prune.immediate(limits, actor, now),
    listPrunes: (limit) =>
      q.listPrunes.all(limit).map((r) => ({ id: r.id, at: r.at, actor: r.actor, table: r.table_name, rowsPruned: r.rows_pruned, olderThan: r.older_than, maxRows: r.max_rows })),
    countAttempts: () => q.countAttempts.get()!.n,
  };
  return store;
}
