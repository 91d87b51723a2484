/** All stores the broker opens, opened together at start-up and checked by readiness.
 * Each typed store (prepared statements over its database) is built here once; the rest
 * of the broker uses `stores.grants`, `stores.audit`, ... and never builds one itself. */
import { existsSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { damagedStoreAdvice, openCheckedStore, openStore, StoreDamagedError, type SqliteDatabase, type StoreDefinition, type StoreIntegrity } from './database.js';
import { auditStore, auditStoreDefinition, type AuditStore } from './audit-store.js';
import { bindingStore, bindingsStoreDefinition, type BindingStore } from './bindings-store.js';
import { grantsStore, grantsStoreDefinition, type GrantsStore } from './grants-store.js';
import { lifecycleStore, type LifecycleStore } from './lifecycle-store.js';
import { leasesStoreDefinition } from './leases-store.js';
import { notesStore, notesStoreDefinition, type NotesStore } from './notes-store.js';
import { notifyStore, notifyStoreDefinition, type NotifyStore } from './notify-store.js';
import { oauthStore, oauthStoreDefinition, type OAuthStore } from './oauth-store.js';
import { registryStoreDefinition, sessionRegistryStore, type SessionRegistryStore } from './registry-store.js';
import { supervisorStore, supervisorStoreDefinition, type SupervisorStore } from './supervisor-store.js';
import { webauthStore, webauthStoreDefinition, type WebauthStore } from './webauth-store.js';

export const STORE_DEFINITIONS = [registryStoreDefinition, webauthStoreDefinition, grantsStoreDefinition, auditStoreDefinition, bindingsStoreDefinition, leasesStoreDefinition, oauthStoreDefinition, notesStoreDefinition, supervisorStoreDefinition, notifyStoreDefinition] as const satisfies readonly StoreDefinition[];
export type StoreName = (typeof STORE_DEFINITIONS)[number]['name'];
/** The stores' names, one `<name>.db` each in the state directory. */
export const STORE_NAMES: readonly StoreName[] = STORE_DEFINITIONS.map((d) => d.name);

/** The typed stores, one per database. */
export interface Stores {
  readonly audit: AuditStore;
  readonly bindings: BindingStore;
  readonly grants: GrantsStore;
  /** Sessions launch profiles started (in registry.db). */
  readonly lifecycle: LifecycleStore;
  readonly notes: NotesStore;
  readonly notify: NotifyStore;
  readonly oauth: OAuthStore;
  readonly registry: SessionRegistryStore;
  readonly supervisor: SupervisorStore;
  readonly webauth: WebauthStore;
}

/**
 * What a damaged store means, decided per store (issue 44):
 * - `refuse`: the broker does not start (the default: grants, accounts, notes, bindings,
 *   tokens, the registry are the operator's and must not silently start empty);
 * - `set-aside`: its loss is tolerable, so the file is renamed `<name>.db.damaged-<time>`
 *   (kept for a look) and the store starts empty: leases.db (unused since input locks
 *   moved to memory) and notify.db (a delivery log);
 * - `refuse-writes`: audit.db. Input is only ever taken with its audit row written, so a
 *   damaged audit log refuses every input attempt (AUDIT_UNAVAILABLE) and readiness is
 *   false, while reads, which need no audit row to be refused, keep working. The file is
 *   kept untouched as the evidence it is.
 */
export type DamagePolicy = 'refuse' | 'set-aside' | 'refuse-writes';
export const DAMAGE_POLICY: Record<StoreName, DamagePolicy> = {
  registry: 'refuse',
  webauth: 'refuse',
  grants: 'refuse',
  audit: 'refuse-writes',
  bindings: 'refuse',
  leases: 'set-aside',
  oauth: 'refuse',
  notes: 'refuse',
  supervisor: 'refuse',
  notify: 'set-aside',
};

/** One store's open-time check, and what was done about a failed one. */
export interface StoreOpenReport extends StoreIntegrity {
  readonly name: StoreName;
  /** `opened` when the check passed. */
  readonly outcome: 'opened' | 'set-aside' | 'refusing-writes';
  /** Where a set-aside file went. */
  readonly setAsideTo?: string;
}

export interface StoreSet extends Stores {
  /** Each store's open-time integrity check (timed) and its outcome, for the start log. */
  readonly opened: readonly StoreOpenReport[];
  readonly stateDir: string;
  /** The raw database, for what is not a store operation (the broker-run record, tests). */
  db(name: StoreName): SqliteDatabase;
  /** Each store answers a trivial query; false when it cannot (disk gone, file deleted). */
  check(): { name: StoreName; ok: boolean; detail?: string }[];
  close(): void;
}

export function openStoreSet(stateDir: string): StoreSet {
  const opened = new Map<StoreName, SqliteDatabase>();
  const db = (name: StoreName): SqliteDatabase => {
    const handle = opened.get(name);
    if (!handle) throw new Error(`store ${name} is not open`);
    return handle;
  };
  const reports: StoreOpenReport[] = [];
  /** Stores open but refusing every write because their file is damaged (audit.db). */
  const refusingWrites = new Map<StoreName, string>();
  let stores: Stores;
  try {
    for (const def of STORE_DEFINITIONS) {
      try {
        const { db: handle, integrity } = openCheckedStore(stateDir, def);
        opened.set(def.name, handle);
        reports.push({ ...integrity, name: def.name, outcome: 'opened' });
      } catch (err) {
        if (!(err instanceof StoreDamagedError)) throw err;
        const policy = DAMAGE_POLICY[def.name];
        if (policy === 'refuse') throw err;
        if (policy === 'set-aside') {
          const setAsideTo = setAside(stateDir, def.name);
          opened.set(def.name, openStore(stateDir, def));
          reports.push({ name: def.name, ok: false, ms: err.ms, detail: err.detail, outcome: 'set-aside', setAsideTo });
        } else {
          opened.set(def.name, openRefusingWrites(err.file, def));
          refusingWrites.set(def.name, `${def.name}.db is damaged (${err.detail}): ${damagedStoreAdvice(err.file)}`.slice(0, 600));
          reports.push({ name: def.name, ok: false, ms: err.ms, detail: err.detail, outcome: 'refusing-writes' });
        }
      }
    }
    stores = {
      audit: auditStore(db('audit')),
      bindings: bindingStore(db('bindings')),
      grants: grantsStore(db('grants')),
      lifecycle: lifecycleStore(db('registry')),
      notes: notesStore(db('notes')),
      notify: notifyStore(db('notify')),
      oauth: oauthStore(db('oauth')),
      registry: sessionRegistryStore(db('registry')),
      supervisor: supervisorStore(db('supervisor')),
      webauth: webauthStore(db('webauth')),
    };
  } catch (err) {
    for (const handle of opened.values()) handle.close();
    throw err;
  }
  return {
    ...stores,
    opened: reports,
    stateDir,
    db,
    check() {
      return STORE_DEFINITIONS.map((def) => {
        const damaged = refusingWrites.get(def.name);
        if (damaged) return { name: def.name, ok: false, detail: damaged };
        try {
          opened.get(def.name)?.prepare('SELECT 1').get();
          return { name: def.name, ok: opened.has(def.name) };
        } catch {
          return { name: def.name, ok: false };
        }
      });
    },
    close() {
      for (const handle of opened.values()) handle.close();
      opened.clear();
    },
  };
}

/** Renames a damaged store's file (and its WAL and shared-memory files) out of the way. */
function setAside(stateDir: string, name: StoreName): string {
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const to = join(stateDir, `${name}.db.damaged-${stamp}`);
  for (const suffix of ['', '-wal', '-shm']) {
    const from = join(stateDir, `${name}.db${suffix}`);
    if (existsSync(from)) renameSync(from, `${to}${suffix}`);
  }
  return to;
}

/**
 * A damaged store opened so that nothing is ever written to it: the file itself with
 * `query_only` (what is still readable stays readable), or, when even its schema cannot be
 * read, an empty in-memory copy of the schema, also `query_only`. Every write then fails
 * with SQLITE_READONLY, which the input path answers AUDIT_UNAVAILABLE.
 */
function openRefusingWrites(file: string, def: StoreDefinition): SqliteDatabase {
  try {
    const db = new Database(file, { fileMustExist: true });
    try {
      db.pragma('query_only = ON');
      // The typed store prepares its statements at once: find out now whether it can.
      if (def.name === 'audit') auditStore(db);
      return db;
    } catch (err) {
      db.close();
      throw err;
    }
  } catch {
    const db = new Database(':memory:');
    for (const step of def.migrations) step(db);
    db.pragma('query_only = ON');
    return db;
  }
}
