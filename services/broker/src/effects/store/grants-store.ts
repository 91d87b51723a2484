/**
 * grants.db: the operator's per-session access grants, made from the dashboard only, and
 * the log of every change to them.
 *
 * One row per session NAME, pinned to the identity the session had when granted (server
 * pid, `$session_id`, creation time); whether it still applies is decided by
 * policy/grants.ts against the live facts. A row always grants read (`CHECK (read = 1)`):
 * revoking read deletes the row, so no input grant can outlive its read grant.
 *
 * `grant_events` is this store's audit trail: every change writes its event row in the
 * same transaction as the change, so a change without its event (or the reverse) cannot
 * be committed. It is meant to be folded into the general audit log (audit.db) later.
 * Times are integer milliseconds since the epoch, except `session_created` (tmux's unix
 * seconds).
 */
import type { GrantRecord } from '../../policy/grants.js';
import { sameSession, type SessionIdentity } from '../../policy/identity.js';
import type { SqliteDatabase, StoreDefinition } from './database.js';

export const grantsStoreDefinition: StoreDefinition = {
  name: 'grants',
  migrations: [
    (db) => {
      db.exec(`CREATE TABLE grants (
        session_name TEXT PRIMARY KEY CHECK (length(session_name) BETWEEN 1 AND 256),
        server_pid INTEGER NOT NULL,
        session_id TEXT NOT NULL,
        session_created INTEGER NOT NULL,
        read INTEGER NOT NULL CHECK (read = 1),
        input INTEGER NOT NULL CHECK (input IN (0, 1)),
        expires_at INTEGER,
        granted_by TEXT NOT NULL CHECK (length(granted_by) BETWEEN 1 AND 64),
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      ) STRICT`);
      db.exec(`CREATE TABLE grant_events (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        at INTEGER NOT NULL,
        actor TEXT NOT NULL CHECK (length(actor) BETWEEN 1 AND 64),
        action TEXT NOT NULL CHECK (action IN ('grant', 'revoke')),
        session_name TEXT NOT NULL,
        server_pid INTEGER NOT NULL,
        session_id TEXT NOT NULL,
        session_created INTEGER NOT NULL,
        read INTEGER NOT NULL CHECK (read IN (0, 1)),
        input INTEGER NOT NULL CHECK (input IN (0, 1) AND input <= read),
        expires_at INTEGER,
        before_read INTEGER CHECK (before_read IS NULL OR before_read IN (0, 1)),
        before_input INTEGER CHECK (before_input IS NULL OR before_input IN (0, 1)),
        before_expires_at INTEGER
      ) STRICT`);
      db.exec('CREATE INDEX grant_events_by_session ON grant_events(session_name, id)');
    },
  ],
};

export type GrantMutation =
  | { kind: 'grant'; sessionName: string; identity: SessionIdentity; input: boolean; expiresAt: number | null }
  | { kind: 'revoke'; sessionName: string };

export interface GrantFlags {
  read: boolean;
  input: boolean;
  expiresAt: number | null;
}

export interface GrantEventRecord {
  id: number;
  at: number;
  actor: string;
  action: 'grant' | 'revoke';
  sessionName: string;
  identity: SessionIdentity;
  after: GrantFlags;
  /** the row under this name before the change (possibly stale); null when there was none */
  before: GrantFlags | null;
}

export interface GrantsStore {
  find(sessionName: string): GrantRecord | undefined;
  /** The stored grants under any of these names, in ONE query (a session list asks for
   * every listed session's grant at once), by name. */
  findMany(sessionNames: readonly string[]): Map<string, GrantRecord>;
  list(): GrantRecord[];
  /**
   * Applies the changes in order, each with its event row, in ONE transaction: every
   * change and its event are written, or none. Per change: the grant afterwards
   * (undefined after a revoke) and whether anything changed (revoking nothing is a no-op
   * and writes no event).
   */
  apply(changes: readonly GrantMutation[], actor: string, now: number): { grant: GrantRecord | undefined; changed: boolean }[];
  /** Newest first; `before` is an event id (exclusive). */
  events(page: { limit: number; before?: number | undefined; sessionName?: string | undefined }): GrantEventRecord[];
}

interface GrantRow {
  session_name: string;
  server_pid: number;
  session_id: string;
  session_created: number;
  read: number;
  input: number;
  expires_at: number | null;
  granted_by: string;
  created_at: number;
  updated_at: number;
}

interface EventRow {
  id: number;
  at: number;
  actor: string;
  action: 'grant' | 'revoke';
  session_name: string;
  server_pid: number;
  session_id: string;
  session_created: number;
  read: number;
  input: number;
  expires_at: number | null;
  before_read: number | null;
  before_input: number | null;
  before_expires_at: number | null;
}

const toGrant = (r: GrantRow): GrantRecord => ({
  sessionName: r.session_name,
  identity: { serverPid: r.server_pid, sessionId: r.session_id, created: r.session_created },
  read: r.read === 1,
  input: r.input === 1,
  expiresAt: r.expires_at,
  grantedBy: r.granted_by,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

const toEvent = (r: EventRow): GrantEventRecord => ({
  id: r.id,
  at: r.at,
  actor: r.actor,
  action: r.action,
  sessionName: r.session_name,
  identity: { serverPid: r.server_pid, sessionId: r.session_id, created: r.session_created },
  after: { read: r.read === 1, input: r.input === 1, expiresAt: r.expires_at },
  before: r.before_read === null ? null : { read: r.before_read === 1, input: r.before_input === 1, expiresAt: r.before_expires_at },
});

const GRANT_COLUMNS = 'session_name, server_pid, session_id, session_created, read, input, expires_at, granted_by, created_at, updated_at';
const EVENT_COLUMNS =
  'id, at, actor, action, session_name, server_pid, session_id, session_created, read, input, expires_at, before_read, before_input, before_expires_at';

/** The store's operations over an open grants.db (statements prepared once; built once per broker by store-set.ts). */
export function grantsStore(db: SqliteDatabase): GrantsStore {
  const q = {
    find: db.prepare<[string], GrantRow>(`SELECT ${GRANT_COLUMNS} FROM grants WHERE session_name = ?`),
    list: db.prepare<[], GrantRow>(`SELECT ${GRANT_COLUMNS} FROM grants ORDER BY session_name`),
    // The names travel as one JSON array: one prepared statement for any number of them.
    findMany: db.prepare<[string], GrantRow>(`SELECT ${GRANT_COLUMNS} FROM grants WHERE session_name IN (SELECT value FROM json_each(?))`),
    upsert: db.prepare<[string, number, string, number, number, number | null, string, number, number]>(
      `INSERT INTO grants (session_name, server_pid, session_id, session_created, read, input, expires_at, granted_by, created_at, updated_at)
       VALUES (?, ?, ?, ?, 1, ?, ?, ?, ?, ?)
       ON CONFLICT (session_name) DO UPDATE SET server_pid = excluded.server_pid, session_id = excluded.session_id,
         session_created = excluded.session_created, read = 1, input = excluded.input, expires_at = excluded.expires_at,
         granted_by = excluded.granted_by, created_at = excluded.created_at, updated_at = excluded.updated_at`,
    ),
    delete: db.prepare<[string]>('DELETE FROM grants WHERE session_name = ?'),
    insertEvent: db.prepare<
      [number, string, string, string, number, string, number, number, number, number | null, number | null, number | null, number | null]
    >(
      `INSERT INTO grant_events (at, actor, action, session_name, server_pid, session_id, session_created, read, input, expires_at,
         before_read, before_input, before_expires_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    events: db.prepare<[number, string | null, string | null, number], EventRow>(
      `SELECT ${EVENT_COLUMNS} FROM grant_events
       WHERE id < ? AND (? IS NULL OR session_name = ?)
       ORDER BY id DESC LIMIT ?`,
    ),
  };

  /** before_read, before_input, before_expires_at */
  const flagsOf = (g: GrantRecord | undefined): [number | null, number | null, number | null] =>
    g ? [g.read ? 1 : 0, g.input ? 1 : 0, g.expiresAt] : [null, null, null];

  function applyOne(change: GrantMutation, actor: string, now: number): { grant: GrantRecord | undefined; changed: boolean } {
    const before = q.find.get(change.sessionName);
    const previous = before ? toGrant(before) : undefined;
    if (change.kind === 'revoke') {
      if (!previous) return { grant: undefined, changed: false };
      q.delete.run(change.sessionName);
      const id = previous.identity;
      q.insertEvent.run(now, actor, 'revoke', change.sessionName, id.serverPid, id.sessionId, id.created, 0, 0, null, ...flagsOf(previous));
      return { grant: undefined, changed: true };
    }
    const { identity, input, expiresAt } = change;
    // Same pinned session: the grant is updated. Another session under the name: a new grant.
    const createdAt = previous !== undefined && sameSession(previous.identity, identity) ? previous.createdAt : now;
    q.upsert.run(change.sessionName, identity.serverPid, identity.sessionId, identity.created, input ? 1 : 0, expiresAt, actor, createdAt, now);
    q.insertEvent.run(
      now,
      actor,
      'grant',
      change.sessionName,
      identity.serverPid,
      identity.sessionId,
      identity.created,
      1,
      input ? 1 : 0,
      expiresAt,
      ...flagsOf(previous),
    );
    return { grant: toGrant(q.find.get(change.sessionName)!), changed: true };
  }

  const store: GrantsStore = {
    find: (sessionName) => {
      const r = q.find.get(sessionName);
      return r ? toGrant(r) : undefined;
    },
    findMany: (sessionNames) => {
      const found = new Map<string, GrantRecord>();
      if (sessionNames.length === 0) return found;
      for (const r of q.findMany.all(JSON.stringify(sessionNames))) found.set(r.session_name, toGrant(r));
      return found;
    },
    list: () => q.list.all().map(toGrant),
    apply: (changes, actor, now) => db.transaction(() => changes.map((c) => applyOne(c, actor, now))).immediate(),
    events: ({ limit, before, sessionName }) =>
      q.events.all(before ?? Number.MAX_SAFE_INTEGER, sessionName ?? null, sessionName ?? null, limit).map(toEvent),
  };
  return store;
}
