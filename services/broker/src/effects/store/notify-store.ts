/**
 * notify.db: one row per delivery of a notice to a notification channel (webhook or push
 * URL): which notice, which channel, the outcome (SENT, FAILED, RATE_LIMITED, FILTERED is
 * not recorded: a filter is configuration, not an event). The notice's text is not kept
 * here; the dashboard's list is in memory. Times are milliseconds since the epoch.
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
  ],
};

export interface NoticeDelivery {
  at: number;
  noticeId: number;
  kind: string;
  session: string | null;
  raisedBy: string;
  channel: string;
  outcome: 'SENT' | 'FAILED' | 'RATE_LIMITED';
  httpStatus: number | null;
}

export interface NotifyStore {
  recordDelivery(d: NoticeDelivery): void;
  listDeliveries(limit: number): (NoticeDelivery & { id: number })[];
}

export function notifyStore(db: SqliteDatabase): NotifyStore {
  const insert = db.prepare<[number, number, string, string | null, string, string, string, number | null]>(
    'INSERT INTO notice_delivery (at, notice_id, kind, session, raised_by, channel, outcome, http_status) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
  );
  const list = db.prepare<[number], { id: number; at: number; notice_id: number; kind: string; session: string | null; raised_by: string; channel: string; outcome: NoticeDelivery['outcome']; http_status: number | null }>(
    'SELECT * FROM notice_delivery ORDER BY id DESC LIMIT ?',
  );
  return {
    recordDelivery: (d) => void insert.run(d.at, d.noticeId, d.kind, d.session, d.raisedBy, d.channel, d.outcome, d.httpStatus),
    listDeliveries: (limit) =>
      list.all(limit).map((r) => ({ id: r.id, at: r.at, noticeId: r.notice_id, kind: r.kind, session: r.session, raisedBy: r.raised_by, channel: r.channel, outcome: r.outcome, httpStatus: r.http_status })),
  };
}
