/**
 * Sessions a launch profile started, in registry.db: one row per tmux session the broker
 * created (by identity: server pid, session id, creation time), linked to the row it
 * replaced (a restart, by a client or by recovery), and an append-only event log of
 * starts, closes, deaths, restarts and crash loops. Close and restart act only on a
 * session with a row here (unless the operator allows more); recovery counts restarts in
 * the last hour from the events. Times are milliseconds since the epoch.
 *
 * A session on a node (docs/nodes.md) is recorded with its `node` and as callers name it:
 * `name` is `node:session` and `session_id` is `node:$3` (the node's tmux server pid in
 * `server_pid`), so the identity stays unique across hosts under the table's UNIQUE
 * (server_pid, session_id, session_created) without rebuilding it: two hosts' tmux servers
 * can have the same pid, ids and creation second. Rows without a node are this host's.
 */
import type { SqliteDatabase } from './database.js';

export const MANAGED_STATES = ['RUNNING', 'CLOSED', 'DIED', 'REPLACED', 'RESTARTING', 'CRASH_LOOP'] as const;
export type ManagedState = (typeof MANAGED_STATES)[number];
export const LIFECYCLE_EVENT_KINDS = ['started', 'closed', 'died', 'restarted', 'crash_loop', 'recover_failed'] as const;
export type LifecycleEventKind = (typeof LIFECYCLE_EVENT_KINDS)[number];

const list = (xs: readonly string[]) => `(${xs.map((x) => `'${x}'`).join(', ')})`;

/** registry.db migration 3 (registry-store.ts lists it). */
export function migrateLifecycleTables(db: SqliteDatabase): void {
  db.exec(`CREATE TABLE managed_sessions (
    id INTEGER PRIMARY KEY,
    profile TEXT NOT NULL,
    name TEXT NOT NULL,
    server_pid INTEGER NOT NULL,
    session_id TEXT NOT NULL,
    session_created INTEGER NOT NULL,
    pane_id TEXT NOT NULL,
    cwd TEXT NOT NULL,
    started_at INTEGER NOT NULL,
    started_by TEXT NOT NULL,
    previous_id INTEGER REFERENCES managed_sessions(id),
    state TEXT NOT NULL CHECK (state IN ${list(MANAGED_STATES)}),
    state_changed_at INTEGER NOT NULL,
    detail TEXT,
    UNIQUE (server_pid, session_id, session_created)
  ) STRICT`);
  db.exec('CREATE INDEX managed_sessions_by_name ON managed_sessions (name, id)');
  db.exec(`CREATE TABLE lifecycle_events (
    id INTEGER PRIMARY KEY,
    at INTEGER NOT NULL,
    managed_id INTEGER NOT NULL REFERENCES managed_sessions(id),
    kind TEXT NOT NULL CHECK (kind IN ${list(LIFECYCLE_EVENT_KINDS)}),
    actor TEXT NOT NULL,
    detail TEXT
  ) STRICT`);
  db.exec('CREATE INDEX lifecycle_events_by_session ON lifecycle_events (managed_id, at)');
}

/** registry.db migration 4: the node a managed session runs on (NULL: this host). */
export function migrateLifecycleNodes(db: SqliteDatabase): void {
  db.exec('ALTER TABLE managed_sessions ADD COLUMN node TEXT CHECK (node IS NULL OR length(node) BETWEEN 1 AND 32)');
}

export interface ManagedSession {
  id: number;
  profile: string;
  /** The node the session runs on; null: this host. */
  node: string | null;
  /** As callers name it: `session`, or `node:session` on a node. */
  name: string;
  serverPid: number;
  /** As callers see it: `$3`, or `node:$3` on a node. */
  sessionId: string;
  sessionCreated: number;
  paneId: string;
  cwd: string;
  startedAt: number;
  startedBy: string;
  previousId: number | null;
  state: ManagedState;
  stateChangedAt: number;
  detail: string | null;
}

export type NewManagedSession = Omit<ManagedSession, 'id' | 'startedAt' | 'state' | 'stateChangedAt' | 'detail'>;

export interface LifecycleStore {
  /** Records a started session and its `started` (or `restarted`, with a previous row)
   * event in one transaction; the previous row becomes REPLACED. */
  recordStart(s: NewManagedSession, now: number): ManagedSession;
  /** Sets a row's state and appends the event that says why, in one transaction. */
  transition(id: number, state: ManagedState, event: LifecycleEventKind, actor: string, detail: string | null, now: number): void;
  /** Appends an event without changing state. */
  note(id: number, event: LifecycleEventKind, actor: string, detail: string | null, now: number): void;
  /** The row of exactly this live session, whatever its state. */
  byIdentity(serverPid: number, sessionId: string, created: number): ManagedSession | undefined;
  byId(id: number): ManagedSession | undefined;
  /** One host's rows still believed alive (RUNNING), for recovery's reconcile of that
   * host: `node` null for this host's, else that node's. */
  runningOn(node: string | null): ManagedSession[];
  /** The newest row of each name, for the dashboard. */
  latestPerName(): ManagedSession[];
  /** Restarts of the chain that ends at `id` (following previous_id) since `since`. */
  restartsSince(id: number, since: number): number;
}

interface Row {
  id: number;
  profile: string;
  node: string | null;
  name: string;
  server_pid: number;
  session_id: string;
  session_created: number;
  pane_id: string;
  cwd: string;
  started_at: number;
  started_by: string;
  previous_id: number | null;
  state: ManagedState;
  state_changed_at: number;
  detail: string | null;
}

const toSession = (r: Row): ManagedSession => ({
  id: r.id,
  profile: r.profile,
  node: r.node,
  name: r.name,
  serverPid: r.server_pid,
  sessionId: r.session_id,
  sessionCreated: r.session_created,
  paneId: r.pane_id,
  cwd: r.cwd,
  startedAt: r.started_at,
  startedBy: r.started_by,
  previousId: r.previous_id,
  state: r.state,
  stateChangedAt: r.state_changed_at,
  detail: r.detail,
});

export function lifecycleStore(db: SqliteDatabase): LifecycleStore {
  const q = {
    insert: db.prepare(
      `INSERT INTO managed_sessions (profile, node, name, server_pid, session_id, session_created, pane_id, cwd, started_at, started_by, previous_id, state, state_changed_at)
       VALUES (@profile, @node, @name, @serverPid, @sessionId, @sessionCreated, @paneId, @cwd, @now, @startedBy, @previousId, 'RUNNING', @now)`,
    ),
    setState: db.prepare<[ManagedState, number, string | null, number]>('UPDATE managed_sessions SET state = ?, state_changed_at = ?, detail = ? WHERE id = ?'),
    event: db.prepare<[number, number, LifecycleEventKind, string, string | null]>('INSERT INTO lifecycle_events (at, managed_id, kind, actor, detail) VALUES (?, ?, ?, ?, ?)'),
    byId: db.prepare<[number], Row>('SELECT * FROM managed_sessions WHERE id = ?'),
    byIdentity: db.prepare<[number, string, number], Row>('SELECT * FROM managed_sessions WHERE server_pid = ? AND session_id = ? AND session_created = ?'),
    runningOn: db.prepare<[string | null], Row>("SELECT * FROM managed_sessions WHERE state = 'RUNNING' AND node IS ? ORDER BY id"),
    latest: db.prepare<[], Row>('SELECT * FROM managed_sessions WHERE id IN (SELECT MAX(id) FROM managed_sessions GROUP BY name) ORDER BY name'),
    restarts: db.prepare<[number, number], { n: number }>(
      `WITH RECURSIVE chain(id, previous_id) AS (
         SELECT id, previous_id FROM managed_sessions WHERE id = ?
         UNION ALL SELECT m.id, m.previous_id FROM managed_sessions m JOIN chain c ON m.id = c.previous_id
       )
       SELECT COUNT(*) AS n FROM lifecycle_events e JOIN chain c ON e.managed_id = c.id WHERE e.kind = 'restarted' AND e.at >= ?`,
    ),
  };
  const recordStart = db.transaction((s: NewManagedSession, now: number): ManagedSession => {
    const id = Number(q.insert.run({ ...s, now }).lastInsertRowid);
    if (s.previousId !== null) {
      q.setState.run('REPLACED', now, `replaced by ${s.sessionId}`, s.previousId);
      q.event.run(now, id, 'restarted', s.startedBy, `previous ${s.previousId}`);
    } else {
      q.event.run(now, id, 'started', s.startedBy, null);
    }
    return toSession(q.byId.get(id)!);
  });
  const transition = db.transaction((id: number, state: ManagedState, event: LifecycleEventKind, actor: string, detail: string | null, now: number) => {
    q.setState.run(state, now, detail, id);
    q.event.run(now, id, event, actor, detail);
  });
  return {
    recordStart: (s, now) => recordStart(s, now),
    transition: (id, state, event, actor, detail, now) => transition(id, state, event, actor, detail, now),
    note: (id, event, actor, detail, now) => void q.event.run(now, id, event, actor, detail),
    byIdentity: (pid, sid, created) => {
      const r = q.byIdentity.get(pid, sid, created);
      return r ? toSession(r) : undefined;
    },
    byId: (id) => {
      const r = q.byId.get(id);
      return r ? toSession(r) : undefined;
    },
    runningOn: (node) => q.runningOn.all(node).map(toSession),
    latestPerName: () => q.latest.all().map(toSession),
    restartsSince: (id, since) => q.restarts.get(id, since)?.n ?? 0,
  };
}
