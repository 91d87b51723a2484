/** registry.db: what this broker has been and seen. `broker_runs`: one row per start, so
 * an operator can see restarts (tmux ids restart at $0 after a tmux server restart, broker
 * restarts matter for reading the audit log). `session_registry`: every tmux session seen,
 * by identity (server pid, session id, creation time), kept after it is gone with its last
 * status and redacted screen; a cleanup leaves a DELETED tombstone, never a bare DELETE.
 * A row's `node` is the host whose tmux had the session (NULL: this host; docs/nodes.md);
 * its name and session id are as that host's tmux reports them, without the node.
 * Times are milliseconds since the epoch; `session_created` is tmux's unix seconds. */
import type { SessionRegistryStatus } from '@terminal-mcp/contract';
import type { SqliteDatabase, StoreDefinition } from './database.js';
import { migrateLifecycleNodes, migrateLifecycleTables } from './lifecycle-store.js';

export const registryStoreDefinition: StoreDefinition = {
  name: 'registry',
  migrations: [
    (db) => {
      db.exec(`CREATE TABLE broker_runs (
        id INTEGER PRIMARY KEY,
        started_at TEXT NOT NULL,
        pid INTEGER NOT NULL,
        version TEXT NOT NULL,
        tmux_socket TEXT
      ) STRICT`);
    },
    (db) => {
      db.exec(`CREATE TABLE session_registry (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL,
        server_pid INTEGER NOT NULL,
        session_id TEXT NOT NULL,
        session_created INTEGER NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('ACTIVE', 'MISSING', 'KILLED', 'DELETED')),
        first_seen INTEGER NOT NULL,
        last_seen INTEGER NOT NULL,
        status_changed_at INTEGER NOT NULL,
        last_command TEXT,
        conversation_id TEXT,
        notes TEXT,
        last_screen TEXT,
        last_screen_at INTEGER,
        deleted_at INTEGER,
        deleted_by TEXT,
        UNIQUE (server_pid, session_id, session_created)
      ) STRICT`);
      db.exec('CREATE INDEX session_registry_by_status ON session_registry (status, name)');
    },
    // v3: sessions a launch profile started, and their starts, deaths and restarts.
    migrateLifecycleTables,
    // v4: the node a launch profile's session runs on (docs/nodes.md).
    migrateLifecycleNodes,
    // v5: sessions of nodes (docs/nodes.md). The node joins the identity: two hosts' tmux
    // servers can share a pid (identical images started at boot), so the table-level
    // UNIQUE (server_pid, session_id, session_created) is rebuilt as a unique index that
    // includes the node (an ALTER cannot change a constraint). Rows before it are this host's.
    (db) => {
      db.exec(`CREATE TABLE session_registry_v5 (
        id INTEGER PRIMARY KEY,
        node TEXT CHECK (node IS NULL OR length(node) BETWEEN 1 AND 32),
        name TEXT NOT NULL,
        server_pid INTEGER NOT NULL,
        session_id TEXT NOT NULL,
        session_created INTEGER NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('ACTIVE', 'MISSING', 'KILLED', 'DELETED')),
        first_seen INTEGER NOT NULL,
        last_seen INTEGER NOT NULL,
        status_changed_at INTEGER NOT NULL,
        last_command TEXT,
        conversation_id TEXT,
        notes TEXT,
        last_screen TEXT,
        last_screen_at INTEGER,
        deleted_at INTEGER,
        deleted_by TEXT
      ) STRICT`);
      const columns = 'id, name, server_pid, session_id, session_created, status, first_seen, last_seen, status_changed_at, last_command, conversation_id, notes, last_screen, last_screen_at, deleted_at, deleted_by';
      db.exec(`INSERT INTO session_registry_v5 (${columns}) SELECT ${columns} FROM session_registry`);
      db.exec('DROP TABLE session_registry');
      db.exec('ALTER TABLE session_registry_v5 RENAME TO session_registry');
      db.exec("CREATE UNIQUE INDEX session_registry_identity ON session_registry (ifnull(node, ''), server_pid, session_id, session_created)");
      db.exec('CREATE INDEX session_registry_by_status ON session_registry (status, node, name)');
    },
  ],
};

export function recordBrokerRun(db: SqliteDatabase, run: { startedAt: Date; pid: number; version: string; tmuxSocket: string | null }): void {
  db.prepare('INSERT INTO broker_runs (started_at, pid, version, tmux_socket) VALUES (?, ?, ?, ?)').run(
    run.startedAt.toISOString(),
    run.pid,
    run.version,
    run.tmuxSocket,
  );
}

/** The row shape lives with the pure cleanup rule that judges it (policy/ imports no effects). */
export type { RegistryRecord } from '../../policy/registry-cleanup.js';
import type { RegistryRecord } from '../../policy/registry-cleanup.js';

/** A session as tmux lists it now. */
export interface LiveSessionIdentity {
  name: string;
  serverPid: number;
  sessionId: string;
  sessionCreated: number;
  currentCommand: string | null;
}

interface RegistryRow {
  id: number;
  node: string | null;
  name: string;
  server_pid: number;
  session_id: string;
  session_created: number;
  status: SessionRegistryStatus;
  first_seen: number;
  last_seen: number;
  status_changed_at: number;
  last_command: string | null;
  conversation_id: string | null;
  notes: string | null;
  last_screen: string | null;
  last_screen_at: number | null;
  deleted_at: number | null;
  deleted_by: string | null;
}

const toRecord = (r: RegistryRow): RegistryRecord => ({
  id: r.id,
  node: r.node,
  name: r.name,
  serverPid: r.server_pid,
  sessionId: r.session_id,
  sessionCreated: r.session_created,
  status: r.status,
  firstSeen: r.first_seen,
  lastSeen: r.last_seen,
  statusChangedAt: r.status_changed_at,
  lastCommand: r.last_command,
  conversationId: r.conversation_id,
  notes: r.notes,
  lastScreen: r.last_screen,
  lastScreenAt: r.last_screen_at,
  deletedAt: r.deleted_at,
  deletedBy: r.deleted_by,
});

export interface SessionRegistryStore {
  /**
   * Records what one host's tmux lists now (`node`, null: this host), in one transaction:
   * each live session is ACTIVE (inserted on first sight, renamed in place), and each
   * ACTIVE row of that host no longer listed becomes KILLED when its tmux server is the one
   * listing now (`serverPid`), else MISSING. Other hosts' rows and tombstones are never
   * touched. Answers the ids of the live rows, by session id.
   */
  reconcile(node: string | null, live: readonly LiveSessionIdentity[], serverPid: number | null, now: number): Map<string, number>;
  /** The last redacted screen of a row (null clears it: the session is not readable now). */
  setScreen(id: number, screen: string | null, now: number): void;
  list(opts?: { statuses?: readonly SessionRegistryStatus[] }): RegistryRecord[];
  /**
   * Tombstones rows in one IMMEDIATE transaction: `decide` sees the current rows and
   * answers the ids to tombstone, or throws to refuse (nothing is changed). The rows keep
   * name and identity; screen and command are dropped; who and when are recorded.
   */
  tombstone(decide: (rows: RegistryRecord[]) => number[], actor: string, now: number): RegistryRecord[];
  /** Sets operator notes and/or the conversation id (null clears) on the newest row of
   * that name on that host (null: this host) that is not a tombstone; undefined when there
   * is none. */
  annotate(node: string | null, name: string, fields: { notes?: string | null; conversationId?: string | null }): RegistryRecord | undefined;
}

export function sessionRegistryStore(db: SqliteDatabase): SessionRegistryStore {
  const q = {
    // `ifnull(node, '')`: the unique index's own expression, so the lookup uses it.
    byIdentity: db.prepare<[string | null, number, string, number], { id: number; status: SessionRegistryStatus }>(
      "SELECT id, status FROM session_registry WHERE ifnull(node, '') = ifnull(?, '') AND server_pid = ? AND session_id = ? AND session_created = ?",
    ),
    insert: db.prepare(
      `INSERT INTO session_registry (node, name, server_pid, session_id, session_created, status, first_seen, last_seen, status_changed_at, last_command)
       VALUES (@node, @name, @serverPid, @sessionId, @sessionCreated, 'ACTIVE', @now, @now, @now, @currentCommand)`,
    ),
    seen: db.prepare(
      `UPDATE session_registry SET name = @name, last_seen = @now, last_command = @currentCommand,
         status_changed_at = CASE WHEN status = 'ACTIVE' THEN status_changed_at ELSE @now END, status = 'ACTIVE'
       WHERE id = @id`,
    ),
    active: db.prepare<[string | null], RegistryRow>("SELECT * FROM session_registry WHERE status = 'ACTIVE' AND node IS ?"),
    gone: db.prepare<[string, number, number]>('UPDATE session_registry SET status = ?, status_changed_at = ? WHERE id = ?'),
    setScreen: db.prepare<[string | null, number | null, number]>('UPDATE session_registry SET last_screen = ?, last_screen_at = ? WHERE id = ?'),
    all: db.prepare<[], RegistryRow>('SELECT * FROM session_registry ORDER BY last_seen DESC, id DESC'),
    newestByName: db.prepare<[string | null, string], RegistryRow>(
      "SELECT * FROM session_registry WHERE node IS ? AND name = ? AND status <> 'DELETED' ORDER BY last_seen DESC, id DESC LIMIT 1",
    ),
    annotate: db.prepare<[string | null, string | null, number]>('UPDATE session_registry SET notes = ?, conversation_id = ? WHERE id = ?'),
    byId: db.prepare<[number], RegistryRow>('SELECT * FROM session_registry WHERE id = ?'),
    tombstone: db.prepare<[number, string, number, number]>(
      "UPDATE session_registry SET status = 'DELETED', status_changed_at = ?, deleted_by = ?, deleted_at = ?, last_screen = NULL, last_screen_at = NULL, last_command = NULL WHERE id = ? AND status <> 'DELETED'",
    ),
  };

  const reconcile = db.transaction((node: string | null, live: readonly LiveSessionIdentity[], serverPid: number | null, now: number) => {
    const ids = new Map<string, number>();
    for (const s of live) {
      const row = q.byIdentity.get(node, s.serverPid, s.sessionId, s.sessionCreated);
      if (!row) ids.set(s.sessionId, Number(q.insert.run({ ...s, node, now }).lastInsertRowid));
      else if (row.status !== 'DELETED') {
        q.seen.run({ ...s, id: row.id, now });
        ids.set(s.sessionId, row.id);
      }
    }
    const listed = new Set(ids.values());
    for (const row of q.active.all(node)) {
      if (!listed.has(row.id)) q.gone.run(row.server_pid === serverPid ? 'KILLED' : 'MISSING', now, row.id);
    }
    return ids;
  });

  const tombstone = db.transaction((decide: (rows: RegistryRecord[]) => number[], actor: string, now: number) => {
    const rows = q.all.all().map(toRecord);
    const ids = new Set(decide(rows));
    for (const id of ids) q.tombstone.run(now, actor, now, id);
    return rows.filter((r) => ids.has(r.id));
  });

  const annotate = db.transaction((node: string | null, name: string, fields: { notes?: string | null; conversationId?: string | null }) => {
    const row = q.newestByName.get(node, name);
    if (!row) return undefined;
    q.annotate.run(fields.notes === undefined ? row.notes : fields.notes, fields.conversationId === undefined ? row.conversation_id : fields.conversationId, row.id);
    return toRecord(q.byId.get(row.id)!);
  });

  const store: SessionRegistryStore = {
    reconcile: (node, live, serverPid, now) => reconcile.immediate(node, live, serverPid, now),
    setScreen: (id, screen, now) => void q.setScreen.run(screen, screen === null ? null : now, id),
    list: (opts = {}) => {
      const rows = q.all.all().map(toRecord);
      return opts.statuses ? rows.filter((r) => opts.statuses!.includes(r.status)) : rows;
    },
    tombstone: (decide, actor, now) => tombstone.immediate(decide, actor, now),
    annotate: (node, name, fields) => annotate.immediate(node, name, fields),
  };
  return store;
}
