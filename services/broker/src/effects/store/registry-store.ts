/** registry.db: what this broker has been — one row per start, so an operator can see
 * restarts (tmux ids restart at $0 after a tmux server restart, broker restarts matter
 * for reading the audit log). */
import type { SqliteDatabase, StoreDefinition } from './database.js';

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
