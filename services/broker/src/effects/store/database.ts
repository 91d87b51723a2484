/**
 * The store layer: one SQLite file per store under the state directory, WAL mode,
 * versioned migrations tracked in `PRAGMA user_version`, created on first open.
 * Each migration runs in its own transaction, so a failed one leaves the previous
 * version intact.
 */
import { chmodSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';

export type SqliteDatabase = Database.Database;

export interface StoreDefinition {
  /** File name without extension, e.g. "audit" for audit.db. */
  name: string;
  /** migrations[i] upgrades the schema from version i to i + 1. */
  migrations: readonly ((db: SqliteDatabase) => void)[];
}

/** Creates the state directory private to the user (0700) when missing. */
export function ensureStateDir(stateDir: string): void {
  mkdirSync(stateDir, { recursive: true, mode: 0o700 });
}

export function openStore(stateDir: string, def: StoreDefinition): SqliteDatabase {
  ensureStateDir(stateDir);
  const file = join(stateDir, `${def.name}.db`);
  const db = new Database(file);
  try {
    chmodSync(file, 0o600);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    db.pragma('busy_timeout = 5000');
    migrate(db, def);
  } catch (err) {
    db.close();
    throw err;
  }
  return db;
}

export function schemaVersion(db: SqliteDatabase): number {
  return db.pragma('user_version', { simple: true }) as number;
}

function migrate(db: SqliteDatabase, def: StoreDefinition): void {
  const current = schemaVersion(db);
  if (current > def.migrations.length) {
    throw new Error(`${def.name}.db has schema version ${current}, newer than this broker knows (${def.migrations.length})`);
  }
  for (let version = current; version < def.migrations.length; version++) {
    const step = def.migrations[version]!;
    db.transaction(() => {
      step(db);
      db.pragma(`user_version = ${version + 1}`);
    })();
  }
}
