/**
 * bindings.db: agent-chosen names for sessions, each pinned to the identity the session
 * had when it was bound (tmux server pid, session id and creation time, the pinned pane's
 * id and pid), on this host (`node` NULL) or on a node (`node` its configured name, the
 * identity as that node's tmux reports it). Times are milliseconds since the epoch. Every
 * read-modify-write runs in one IMMEDIATE transaction.
 */
import type { SqliteDatabase, StoreDefinition } from './database.js';

export const bindingsStoreDefinition: StoreDefinition = {
  name: 'bindings',
  migrations: [
    (db) => {
      db.exec(`CREATE TABLE bindings (
        name TEXT PRIMARY KEY CHECK (length(name) BETWEEN 1 AND 64),
        session_name TEXT NOT NULL,
        server_pid INTEGER NOT NULL,
        session_id TEXT NOT NULL,
        session_created INTEGER NOT NULL,
        pane_id TEXT NOT NULL,
        pane_pid INTEGER NOT NULL,
        input_enabled INTEGER NOT NULL CHECK (input_enabled IN (0, 1)),
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        updated_by TEXT NOT NULL
      ) STRICT`);
    },
    // Bindings on nodes (docs/nodes.md): the node whose tmux holds the pinned pane; the
    // rows before this version are all this host's (NULL).
    (db) => {
      db.exec('ALTER TABLE bindings ADD COLUMN node TEXT CHECK (node IS NULL OR length(node) BETWEEN 1 AND 32)');
    },
  ],
};

export interface BindingRecord {
  name: string;
  /** The node the pane is on; null: this host. */
  node: string | null;
  /** The session's name on its host (no node prefix). */
  sessionName: string;
  serverPid: number;
  sessionId: string;
  sessionCreated: number;
  paneId: string;
  panePid: number;
  inputEnabled: boolean;
  createdAt: number;
  updatedAt: number;
  updatedBy: string;
}

interface BindingRow {
  name: string;
  node: string | null;
  session_name: string;
  server_pid: number;
  session_id: string;
  session_created: number;
  pane_id: string;
  pane_pid: number;
  input_enabled: number;
  created_at: number;
  updated_at: number;
  updated_by: string;
}

const toRecord = (r: BindingRow): BindingRecord => ({
  name: r.name,
  node: r.node,
  sessionName: r.session_name,
  serverPid: r.server_pid,
  sessionId: r.session_id,
  sessionCreated: r.session_created,
  paneId: r.pane_id,
  panePid: r.pane_pid,
  inputEnabled: r.input_enabled === 1,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
  updatedBy: r.updated_by,
});

export interface BindingStore {
  get(name: string): BindingRecord | undefined;
  list(): BindingRecord[];
  /**
   * Reads the binding, lets `decide` compute what to store (or throw to refuse), and
   * writes it, in one transaction: two concurrent binds of one name cannot both pass a
   * "does it exist" check.
   */
  update<T>(name: string, decide: (existing: BindingRecord | undefined) => { result: T; write?: BindingRecord }): T;
  remove(name: string): boolean;
  /** How many bindings `actor` created or last changed (its share of the per-actor cap).
   * Called inside `decide`, it reads the same transaction's state. */
  countByActor(actor: string): number;
}

const COLUMNS = 'name, node, session_name, server_pid, session_id, session_created, pane_id, pane_pid, input_enabled, created_at, updated_at, updated_by';
export function bindingStore(db: SqliteDatabase): BindingStore {
  const q = {
    get: db.prepare<[string], BindingRow>(`SELECT ${COLUMNS} FROM bindings WHERE name = ?`),
    list: db.prepare<[], BindingRow>(`SELECT ${COLUMNS} FROM bindings ORDER BY name`),
    upsert: db.prepare(
      `INSERT INTO bindings (${COLUMNS}) VALUES (@name, @node, @sessionName, @serverPid, @sessionId, @sessionCreated, @paneId, @panePid,
         @inputEnabled, @createdAt, @updatedAt, @updatedBy)
       ON CONFLICT (name) DO UPDATE SET node = excluded.node, session_name = excluded.session_name, server_pid = excluded.server_pid,
         session_id = excluded.session_id, session_created = excluded.session_created, pane_id = excluded.pane_id,
         pane_pid = excluded.pane_pid, input_enabled = excluded.input_enabled, created_at = excluded.created_at,
         updated_at = excluded.updated_at, updated_by = excluded.updated_by`,
    ),
    remove: db.prepare<[string]>('DELETE FROM bindings WHERE name = ?'),
    countBy: db.prepare<[string], { n: number }>('SELECT count(*) AS n FROM bindings WHERE updated_by = ?'),
  };
  const update = db.transaction(<T>(name: string, decide: (existing: BindingRecord | undefined) => { result: T; write?: BindingRecord }): T => {
    const row = q.get.get(name);
    const { result, write } = decide(row ? toRecord(row) : undefined);
    if (write) q.upsert.run({ ...write, inputEnabled: write.inputEnabled ? 1 : 0 });
    return result;
  });
  const store: BindingStore = {
    get: (name) => {
      const row = q.get.get(name);
      return row ? toRecord(row) : undefined;
    },
    list: () => q.list.all().map(toRecord),
    update: (name, decide) => update.immediate(name, decide) as never,
    remove: (name) => q.remove.run(name).changes > 0,
    countByActor: (actor) => q.countBy.get(actor)!.n,
  };
  return store;
}
