/**
 * The store layer: one SQLite file per store under the state directory, WAL mode,
 * versioned migrations tracked in `PRAGMA user_version`, created on first open.
 * Each migration runs in its own transaction, so a failed one leaves the previous
 * version intact.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
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

/** What the open-time check of one store found, and how long it took. */
export interface StoreIntegrity {
  readonly name: string;
  readonly ok: boolean;
  readonly ms: number;
  /** "ok", or SQLite's first complaints (capped). */
  readonly detail: string;
}

/** SQLite's answers for a file that is not (or no longer) a well-formed database. */
const DAMAGE_CODES: ReadonlySet<string> = new Set(['SQLITE_CORRUPT', 'SQLITE_NOTADB', 'SQLITE_CORRUPT_INDEX', 'SQLITE_CORRUPT_SEQUENCE', 'SQLITE_CORRUPT_VTAB']);

export function isDamageError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && DAMAGE_CODES.has(code);
}

/** The next step for a damaged store, named in the broker's refusal and its log. */
export function damagedStoreAdvice(file: string): string {
  return `run \`terminal-mcp doctor\`, then, with the broker stopped, restore the state directory from a backup (\`terminal-mcp restore DIR\`) or move ${file} aside to start that store empty`;
}

/** A store that failed its open-time check: the broker does not run on it (its rows are
 * the operator's grants, accounts, notes...: starting empty would silently lose them). */
export class StoreDamagedError extends Error {
  readonly file: string;
  readonly detail: string;
  /** How long the check that found it took. */
  readonly ms: number;
  constructor(file: string, detail: string, ms = 0) {
    super(`${file} is damaged (${detail}): ${damagedStoreAdvice(file)}`);
    this.name = 'StoreDamagedError';
    this.file = file;
    this.detail = detail;
    this.ms = ms;
  }
}

/**
 * `PRAGMA quick_check` (every page and record well formed; unlike integrity_check it
 * skips matching indexes against tables, so it stays linear in the file's size), timed.
 * A file that SQLite cannot read at all ("file is not a database") fails it too.
 */
export function checkStoreIntegrity(db: SqliteDatabase, name: string): StoreIntegrity {
  const began = performance.now();
  let detail: string;
  try {
    const rows = db.pragma('quick_check(3)') as { quick_check: string }[];
    detail = rows.map((r) => r.quick_check.replace(/\s+/g, ' ')).join('; ');
  } catch (err) {
    if (!isDamageError(err)) throw err;
    detail = (err as Error).message;
  }
  return { name, ok: detail === 'ok', ms: Math.round((performance.now() - began) * 10) / 10, detail: detail.slice(0, 200) };
}

/**
 * A store opened to look only (a dry run, a report): never creates the state directory or
 * the file, never migrates, and refuses every write. Null when the store does not exist yet.
 */
export function openStoreReadOnly(stateDir: string, def: StoreDefinition): SqliteDatabase | null {
  const file = join(stateDir, `${def.name}.db`);
  if (!existsSync(file)) return null;
  const db = existsSync(`${file}-wal`) ? new Database(file, { readonly: true, fileMustExist: true }) : inMemoryCopy(file);
  try {
    db.pragma('busy_timeout = 5000');
    const version = schemaVersion(db);
    if (version !== def.migrations.length) throw new Error(`${def.name}.db has schema version ${version}, this version reads ${def.migrations.length}: start the broker once (it migrates the store), then look again`);
  } catch (err) {
    db.close();
    throw err;
  }
  return db;
}

/**
 * A WAL-mode store with no `-wal` beside it (no broker has it open): even a read-only
 * connection would create `-wal` and `-shm` next to it, so it is read from an in-memory
 * copy instead. The copy's header is set to the rollback journal (bytes 18-19: SQLite's
 * file format versions, 2 for WAL), which an in-memory database needs; the file is only read.
 */
function inMemoryCopy(file: string): SqliteDatabase {
  const bytes = readFileSync(file);
  if (bytes.length >= 20) {
    bytes[18] = 1;
    bytes[19] = 1;
  }
  return new Database(bytes, { readonly: true });
}

export function openStore(stateDir: string, def: StoreDefinition): SqliteDatabase {
  return openCheckedStore(stateDir, def).db;
}

/** Opens a store after checking it (StoreDamagedError when the check fails), and says how
 * the check went. */
export function openCheckedStore(stateDir: string, def: StoreDefinition): { db: SqliteDatabase; integrity: StoreIntegrity } {
  ensureStateDir(stateDir);
  const file = join(stateDir, `${def.name}.db`);
  const db = new Database(file);
  let integrity: StoreIntegrity;
  try {
    integrity = checkStoreIntegrity(db, def.name);
    if (!integrity.ok) throw new StoreDamagedError(file, integrity.detail, integrity.ms);
    chmodSync(file, 0o600);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    db.pragma('busy_timeout = 5000');
    migrate(db, def);
  } catch (err) {
    db.close();
    // A damaged page can also surface only now (a migration reads the schema).
    if (isDamageError(err)) throw new StoreDamagedError(file, (err as Error).message.slice(0, 200));
    throw err;
  }
  return { db, integrity };
}

export function schemaVersion(db: SqliteDatabase): number {
  return db.pragma('user_version', { simple: true }) as number;
}

function migrate(db: SqliteDatabase, def: StoreDefinition): void {
  const current = schemaVersion(db);
  if (current > def.migrations.length) {
    throw new Error(`${def.name}.db has schema version ${current}, newer than this broker knows (${def.migrations.length}): upgrade terminal-mcp, or restore a backup made by this version (\`terminal-mcp restore DIR\`)`);
  }
  for (let version = current; version < def.migrations.length; version++) {
    const step = def.migrations[version]!;
    db.transaction(() => {
      step(db);
      db.pragma(`user_version = ${version + 1}`);
    })();
  }
}
