/**
 * notify.db: the notices waiting for the notifier (`notice_outbox`) and one row per
 * delivery of a notice to a notification channel or the supervisor webhook
 * (`notice_delivery`): which notice, which channel, the outcome. SENT and FAILED are what
 * the notifier reported; RATE_LIMITED is the channel's minute budget (decided by the
 * broker when the notice was raised); DROPPED a pending delivery pushed out by a backlog
 * over its cap while the notifier was away; UNKNOWN one a notifier claimed and never
 * reported (it stopped mid-send: it may or may not have arrived, so it is not sent
 * again). FILTERED is not recorded: a filter is configuration, not an event. The outbox
 * keeps the request body the broker built (redacted text, never a URL: the channel's URL
 * is read from the configuration when the notifier claims the row). Times are
 * milliseconds since the epoch.
 */
import type { SqliteDatabase, StoreDefinition } from './database.js';

export const notifyStoreDefinition: StoreDefinition = {
  name: 'notify',
  migrations: [
    (db) => {
      db.exec(`CREATE TABLE notice_delivery (
        id INTEGER PRIMARY KEY,
        at INTEGER NOT NULL,
        notice_id INTEGER NOT NULL,
        kind TEXT NOT NULL,
        session TEXT,
        raised_by TEXT NOT NULL,
        channel TEXT NOT NULL,
        outcome TEXT NOT NULL CHECK (outcome IN ('SENT', 'FAILED', 'RATE_LIMITED')),
        http_status INTEGER
      ) STRICT`);
      db.exec('CREATE INDEX notice_delivery_at ON notice_delivery (at)');
    },
    // Delivery moved to the notifier process: an outbox, and outcomes with a reason and
    // the attempts the notifier made (a CHECK cannot be altered: the table is rebuilt).
    (db) => {
      db.exec(`CREATE TABLE notice_delivery_v2 (
        id INTEGER PRIMARY KEY,
        at INTEGER NOT NULL,
        notice_id INTEGER NOT NULL,
        kind TEXT NOT NULL,
        session TEXT,
        raised_by TEXT NOT NULL,
        channel TEXT NOT NULL,
        outcome TEXT NOT NULL CHECK (outcome IN ('SENT', 'FAILED', 'RATE_LIMITED', 'DROPPED', 'UNKNOWN')),
        http_status INTEGER,
        reason TEXT,
        attempts INTEGER NOT NULL DEFAULT 0
      ) STRICT`);
      db.exec('INSERT INTO notice_delivery_v2 (id, at, notice_id, kind, session, raised_by, channel, outcome, http_status) SELECT id, at, notice_id, kind, session, raised_by, channel, outcome, http_status FROM notice_delivery');
      db.exec('DROP TABLE notice_delivery');
      db.exec('ALTER TABLE notice_delivery_v2 RENAME TO notice_delivery');
      db.exec('CREATE INDEX notice_delivery_at ON notice_delivery (at)');
      db.exec(`CREATE TABLE notice_outbox (
        id INTEGER PRIMARY KEY,
        at INTEGER NOT NULL,
        target TEXT NOT NULL,
        notice_id INTEGER NOT NULL,
        kind TEXT NOT NULL,
        session TEXT,
        raised_by TEXT NOT NULL,
        headers TEXT NOT NULL,
        body TEXT NOT NULL,
        state TEXT NOT NULL CHECK (state IN ('PENDING', 'SENDING')),
        claimed_at INTEGER
      ) STRICT`);
      db.exec('CREATE INDEX notice_outbox_state ON notice_outbox (state, id)');
    },
  ],
};

export type DeliveryOutcome = 'SENT' | 'FAILED' | 'RATE_LIMITED' | 'DROPPED' | 'UNKNOWN';

/** Which notice a delivery row is about. */
export interface NoticeRef {
  noticeId: number;
  kind: string;
  session: string | null;
  raisedBy: string;
}

export interface NoticeDelivery extends NoticeRef {
  at: number;
  channel: string;
  outcome: DeliveryOutcome;
  httpStatus: number | null;
  reason?: string | null;
  attempts?: number;
}

/** A delivery waiting in the outbox, or claimed by the notifier. */
export interface OutboxEntry extends NoticeRef {
  id: number;
  at: number;
  target: string;
  headers: Record<string, string>;
  body: string;
}

export interface NotifyStore {
  recordDelivery(d: NoticeDelivery): void;
  listDeliveries(limit: number): (NoticeDelivery & { id: number })[];
  /** Adds a pending delivery; its id. */
  enqueue(entry: Omit<OutboxEntry, 'id'>): number;
  /** How many deliveries wait in the outbox (claimed or not). */
  waitingCount(): number;
  /** How many deliveries to `target` wait unclaimed. */
  pendingCount(target: string): number;
  /** Removes the oldest unclaimed delivery to `target` and records it DROPPED. */
  dropOldestPending(target: string, at: number, reason: string): OutboxEntry | undefined;
  /** Marks up to `max` pending deliveries, oldest first, as claimed. */
  claim(max: number, at: number): OutboxEntry[];
  /** Ends a claimed delivery with the notifier's report; false when `id` is not claimed. */
  settle(id: number, report: { at: number; outcome: 'SENT' | 'FAILED'; httpStatus: number | null; reason: string | null; attempts: number }): boolean;
  /** Ends every claimed delivery as UNKNOWN (a notifier started again: the one before it
   * may have sent them); how many. */
  abandonClaimed(at: number): number;
}

interface OutboxRow {
  id: number;
  at: number;
  target: string;
  notice_id: number;
  kind: string;
  session: string | null;
  raised_by: string;
  headers: string;
  body: string;
}

const entryOf = (r: OutboxRow): OutboxEntry => ({
  id: r.id,
  at: r.at,
  target: r.target,
  noticeId: r.notice_id,
  kind: r.kind,
  session: r.session,
  raisedBy: r.raised_by,
  headers: JSON.parse(r.headers) as Record<string, string>,
  body: r.body,
});

export function notifyStore(db: SqliteDatabase): NotifyStore {
  const insert = db.prepare<[number, number, string, string | null, string, string, string, number | null, string | null, number]>(
    'INSERT INTO notice_delivery (at, notice_id, kind, session, raised_by, channel, outcome, http_status, reason, attempts) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
  );
  const list = db.prepare<[number], { id: number; at: number; notice_id: number; kind: string; session: string | null; raised_by: string; channel: string; outcome: DeliveryOutcome; http_status: number | null; reason: string | null; attempts: number }>(
    'SELECT * FROM notice_delivery ORDER BY id DESC LIMIT ?',
  );
  const add = db.prepare<[number, string, number, string, string | null, string, string, string]>(
    "INSERT INTO notice_outbox (at, target, notice_id, kind, session, raised_by, headers, body, state) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'PENDING')",
  );
  const countAll = db.prepare<[], { n: number }>('SELECT count(*) AS n FROM notice_outbox');
  const countPending = db.prepare<[string], { n: number }>("SELECT count(*) AS n FROM notice_outbox WHERE target = ? AND state = 'PENDING'");
  const oldestPending = db.prepare<[string], OutboxRow>("SELECT * FROM notice_outbox WHERE target = ? AND state = 'PENDING' ORDER BY id LIMIT 1");
  const pending = db.prepare<[number], OutboxRow>("SELECT * FROM notice_outbox WHERE state = 'PENDING' ORDER BY id LIMIT ?");
  const markClaimed = db.prepare<[number, number]>("UPDATE notice_outbox SET state = 'SENDING', claimed_at = ? WHERE id = ?");
  const claimedOne = db.prepare<[number], OutboxRow>("SELECT * FROM notice_outbox WHERE id = ? AND state = 'SENDING'");
  const claimedAll = db.prepare<[], OutboxRow>("SELECT * FROM notice_outbox WHERE state = 'SENDING' ORDER BY id");
  const remove = db.prepare<[number]>('DELETE FROM notice_outbox WHERE id = ?');

  const recordDelivery = (d: NoticeDelivery) =>
    void insert.run(d.at, d.noticeId, d.kind, d.session, d.raisedBy, d.channel, d.outcome, d.httpStatus, d.reason ?? null, d.attempts ?? 0);
  const finish = (row: OutboxRow, d: Pick<NoticeDelivery, 'at' | 'outcome' | 'httpStatus' | 'reason' | 'attempts'>) => {
    remove.run(row.id);
    recordDelivery({ ...d, noticeId: row.notice_id, kind: row.kind, session: row.session, raisedBy: row.raised_by, channel: row.target });
  };

  return {
    recordDelivery,
    listDeliveries: (limit) =>
      list.all(limit).map((r) => ({ id: r.id, at: r.at, noticeId: r.notice_id, kind: r.kind, session: r.session, raisedBy: r.raised_by, channel: r.channel, outcome: r.outcome, httpStatus: r.http_status, reason: r.reason, attempts: r.attempts })),
    enqueue: (e) => Number(add.run(e.at, e.target, e.noticeId, e.kind, e.session, e.raisedBy, JSON.stringify(e.headers), e.body).lastInsertRowid),
    waitingCount: () => countAll.get()?.n ?? 0,
    pendingCount: (target) => countPending.get(target)?.n ?? 0,
    dropOldestPending: db.transaction((target: string, at: number, reason: string) => {
      const row = oldestPending.get(target);
      if (row === undefined) return undefined;
      finish(row, { at, outcome: 'DROPPED', httpStatus: null, reason, attempts: 0 });
      return entryOf(row);
    }),
    claim: db.transaction((max: number, at: number) => {
      const rows = pending.all(max);
      for (const r of rows) markClaimed.run(at, r.id);
      return rows.map(entryOf);
    }),
    settle: db.transaction((id: number, r: { at: number; outcome: 'SENT' | 'FAILED'; httpStatus: number | null; reason: string | null; attempts: number }) => {
      const row = claimedOne.get(id);
      if (row === undefined) return false;
      finish(row, { at: r.at, outcome: r.outcome, httpStatus: r.httpStatus, reason: r.reason, attempts: r.attempts });
      return true;
    }),
    abandonClaimed: db.transaction((at: number) => {
      const rows = claimedAll.all();
      for (const row of rows) finish(row, { at, outcome: 'UNKNOWN', httpStatus: null, reason: 'the notifier stopped before reporting it', attempts: 0 });
      return rows.length;
    }),
  };
}
