/**
 * Backup and restore of the state directory. A backup is a directory holding a
 * consistent copy of every store made through SQLite's online backup API (safe while the
 * broker runs and writes: the copy is one point in time, never a torn file), the audit
 * HMAC key, the config file, and `manifest.json` (versions, each store's schema version,
 * sizes and SHA-256 checksums), written last so a half-written backup has no manifest.
 *
 * Restore refuses a manifest it does not know, a checksum that does not match, or a store
 * from a newer schema than this broker knows (migrations are forward only). It moves the
 * files it replaces aside into `pre-restore-<time>/` in the state directory instead of
 * deleting them, and removes a store's -wal/-shm before putting the restored file in
 * place (an old WAL must never be replayed onto a restored database). The caller makes
 * sure no broker runs.
 */
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import Database from 'better-sqlite3';
import { z } from 'zod';
import { AUDIT_KEY_FILE_NAME } from '../audit-key-file.js';
import { ensureStateDir, schemaVersion } from './database.js';
import { ATTACHMENTS_DIR } from '../attachments/attachment-files.js';
import { STORE_DEFINITIONS } from './store-set.js';

export const MANIFEST_FILE_NAME = 'manifest.json';
const MANIFEST_FORMAT = 'terminal-mcp-backup';
const CONFIG_COPY_NAME = 'config.yaml';

const fileEntrySchema = z.object({ file: z.string().regex(/^[a-z0-9._-]{1,80}$/), bytes: z.number().int().min(0), sha256: z.string().regex(/^[0-9a-f]{64}$/) });

export const manifestSchema = z.object({
  format: z.literal(MANIFEST_FORMAT),
  format_version: z.literal(1),
  created_at: z.string(),
  broker_version: z.string(),
  node_version: z.string(),
  source: z.object({ state_dir: z.string(), config_path: z.string().nullable() }),
  stores: z.array(fileEntrySchema.extend({ name: z.string().regex(/^[a-z0-9_-]{1,40}$/), schema_version: z.number().int().min(0) })),
  /** Stores the source state directory did not have (never opened): nothing to restore. */
  absent_stores: z.array(z.string()),
  audit_key: fileEntrySchema.nullable(),
  config: fileEntrySchema.extend({ original_path: z.string() }).nullable(),
  /** The notes' image files, by their path under the state directory: exactly the shape the
   * broker writes (notes_attachments/YYYY/MM/<uuid>.<ext>), so a hostile manifest cannot
   * name a path outside it. Absent in backups made before notes existed. */
  attachments: z
    .array(fileEntrySchema.extend({ file: z.string().regex(/^notes_attachments\/\d{4}\/\d{2}\/[0-9a-f-]{36}\.(png|jpg|gif|webp)$/) }))
    .default([]),
});
export type BackupManifest = z.infer<typeof manifestSchema>;

function sha256File(path: string): { bytes: number; sha256: string } {
  const data = readFileSync(path);
  return { bytes: data.length, sha256: createHash('sha256').update(data).digest('hex') };
}

function requireEmptyDir(dir: string): void {
  if (existsSync(dir)) {
    if (!statSync(dir).isDirectory()) throw new BackupError(`${dir} exists and is not a directory`);
    if (readdirSync(dir).length > 0) throw new BackupError(`${dir} is not empty; back up into a new directory`);
  }
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
}

export class BackupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BackupError';
  }
}

/** One store, copied page by page by SQLite from a read-only connection; the copy is then
 * switched out of WAL so it is a single self-contained file. */
async function backupStore(source: string, dest: string): Promise<number> {
  const db = new Database(source, { readonly: true, fileMustExist: true });
  try {
    db.pragma('busy_timeout = 5000');
    // Large steps: each step holds a read lock briefly; a write by the broker between
    // steps makes SQLite restart the copy, so finishing in few steps keeps it short.
    await db.backup(dest, { progress: () => 1 << 20 });
  } finally {
    db.close();
  }
  const copy = new Database(dest);
  try {
    copy.pragma('journal_mode = DELETE');
    const check = copy.pragma('quick_check', { simple: true });
    if (check !== 'ok') throw new BackupError(`the copy of ${basename(source)} fails SQLite's quick_check (${String(check)})`);
    return schemaVersion(copy);
  } finally {
    copy.close();
  }
}

/** The notes' image files under the state directory, as relative paths. */
function attachmentFiles(stateDir: string): string[] {
  const root = join(stateDir, ATTACHMENTS_DIR);
  if (!existsSync(root)) return [];
  return readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => relative(stateDir, join(e.parentPath, e.name)))
    .sort();
}

export interface BackupOptions {
  stateDir: string;
  configPath: string | undefined;
  dest: string;
  brokerVersion: string;
}

export async function backupStateDir(opts: BackupOptions): Promise<BackupManifest> {
  // A wrong TERMINAL_MCP_STATE_DIR must not produce an empty "successful" backup.
  if (!STORE_DEFINITIONS.some((def) => existsSync(join(opts.stateDir, `${def.name}.db`)))) {
    throw new BackupError(`no store in ${opts.stateDir}: nothing to back up (is TERMINAL_MCP_STATE_DIR right?)`);
  }
  requireEmptyDir(opts.dest);
  const stores: BackupManifest['stores'] = [];
  const absent: string[] = [];
  for (const def of STORE_DEFINITIONS) {
    const source = join(opts.stateDir, `${def.name}.db`);
    if (!existsSync(source)) {
      absent.push(def.name);
      continue;
    }
    const file = `${def.name}.db`;
    const dest = join(opts.dest, file);
    const version = await backupStore(source, dest);
    chmodSync(dest, 0o600);
    stores.push({ name: def.name, file, schema_version: version, ...sha256File(dest) });
  }
  let auditKey: BackupManifest['audit_key'] = null;
  const keyPath = join(opts.stateDir, AUDIT_KEY_FILE_NAME);
  if (existsSync(keyPath)) {
    copyFileSync(keyPath, join(opts.dest, AUDIT_KEY_FILE_NAME));
    chmodSync(join(opts.dest, AUDIT_KEY_FILE_NAME), 0o600);
    auditKey = { file: AUDIT_KEY_FILE_NAME, ...sha256File(join(opts.dest, AUDIT_KEY_FILE_NAME)) };
  }
  let config: BackupManifest['config'] = null;
  if (opts.configPath) {
    copyFileSync(opts.configPath, join(opts.dest, CONFIG_COPY_NAME));
    chmodSync(join(opts.dest, CONFIG_COPY_NAME), 0o600);
    config = { file: CONFIG_COPY_NAME, original_path: opts.configPath, ...sha256File(join(opts.dest, CONFIG_COPY_NAME)) };
  }
  // After the stores: a file added in between is only an unreferenced extra.
  const attachments: BackupManifest['attachments'] = [];
  for (const file of attachmentFiles(opts.stateDir)) {
    mkdirSync(dirname(join(opts.dest, file)), { recursive: true, mode: 0o700 });
    copyFileSync(join(opts.stateDir, file), join(opts.dest, file));
    chmodSync(join(opts.dest, file), 0o600);
    attachments.push({ file, ...sha256File(join(opts.dest, file)) });
  }
  const manifest: BackupManifest = {
    format: MANIFEST_FORMAT,
    format_version: 1,
    created_at: new Date().toISOString(),
    broker_version: opts.brokerVersion,
    node_version: process.version,
    source: { state_dir: opts.stateDir, config_path: opts.configPath ?? null },
    stores,
    absent_stores: absent,
    audit_key: auditKey,
    config,
    attachments,
  };
  writeFileSync(join(opts.dest, MANIFEST_FILE_NAME), `${JSON.stringify(manifest, null, 2)}\n`, { mode: 0o600 });
  return manifest;
}

/** The manifest, checked against the files next to it: every problem, or none. */
export function verifyBackup(dir: string): { manifest: BackupManifest; problems: string[] } {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(join(dir, MANIFEST_FILE_NAME), 'utf8'));
  } catch (err) {
    throw new BackupError(`${join(dir, MANIFEST_FILE_NAME)} cannot be read (${(err as NodeJS.ErrnoException).code ?? 'not JSON'}): not a terminal-mcp backup, or an unfinished one`);
  }
  const parsed = manifestSchema.safeParse(raw);
  if (!parsed.success) throw new BackupError(`${join(dir, MANIFEST_FILE_NAME)} is not a manifest this version understands`);
  const manifest = parsed.data;
  const problems: string[] = [];
  const entries = [...manifest.stores, ...(manifest.audit_key ? [manifest.audit_key] : []), ...(manifest.config ? [manifest.config] : []), ...manifest.attachments];
  for (const entry of entries) {
    const path = join(dir, entry.file);
    if (!existsSync(path)) {
      problems.push(`${entry.file} is missing`);
      continue;
    }
    const actual = sha256File(path);
    if (actual.sha256 !== entry.sha256 || actual.bytes !== entry.bytes) problems.push(`${entry.file} does not match its checksum`);
  }
  for (const store of manifest.stores) {
    const def = STORE_DEFINITIONS.find((d) => d.name === store.name);
    if (!def) problems.push(`${store.file} is a store this broker does not know (made by a newer version?)`);
    else if (store.schema_version > def.migrations.length) {
      problems.push(`${store.file} has schema version ${store.schema_version}, newer than this broker's ${def.migrations.length}: upgrade terminal-mcp before restoring (migrations only go forward)`);
    }
  }
  return { manifest, problems };
}

export interface RestoreResult {
  manifest: BackupManifest;
  restored: string[];
  /** Where the replaced files went, or undefined when the state directory had none. */
  movedAside: string | undefined;
}

/** Restores a verified backup into `stateDir` (created if missing). No broker may run. */
export function restoreStateDir(dir: string, stateDir: string): RestoreResult {
  const { manifest, problems } = verifyBackup(dir);
  if (problems.length > 0) throw new BackupError(`the backup in ${dir} fails verification, nothing was restored:\n  - ${problems.join('\n  - ')}`);
  ensureStateDir(stateDir);
  const aside = join(stateDir, `pre-restore-${new Date().toISOString().replace(/[:.]/g, '-')}`);
  let movedAny = false;
  const moveAside = (name: string) => {
    const path = join(stateDir, name);
    if (!existsSync(path)) return;
    if (!movedAny) mkdirSync(aside, { mode: 0o700 });
    movedAny = true;
    renameSync(path, join(aside, name));
  };
  // Every store this broker knows is replaced, also those the backup did not have (they
  // start empty), so the result is the backup's state, not a mix of two points in time.
  for (const def of STORE_DEFINITIONS) for (const suffix of ['.db', '.db-wal', '.db-shm']) moveAside(`${def.name}${suffix}`);
  if (manifest.audit_key) moveAside(AUDIT_KEY_FILE_NAME);
  moveAside(ATTACHMENTS_DIR);
  const restored: string[] = [];
  const place = (file: string) => {
    mkdirSync(dirname(join(stateDir, file)), { recursive: true, mode: 0o700 });
    const tmp = join(dirname(join(stateDir, file)), `.${basename(file)}.restoring`);
    copyFileSync(join(dir, file), tmp);
    chmodSync(tmp, 0o600);
    renameSync(tmp, join(stateDir, file));
    restored.push(file);
  };
  for (const store of manifest.stores) place(store.file);
  if (manifest.audit_key) place(manifest.audit_key.file);
  for (const attachment of manifest.attachments) place(attachment.file);
  return { manifest, restored, movedAside: movedAny ? aside : undefined };
}
