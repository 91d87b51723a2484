/** All stores the broker opens, opened together at start-up and checked by readiness.
 * Each typed store (prepared statements over its database) is built here once; the rest
 * of the broker uses `stores.grants`, `stores.audit`, ... and never builds one itself. */
import { openStore, type SqliteDatabase, type StoreDefinition } from './database.js';
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

export interface StoreSet extends Stores {
  readonly stateDir: string;
  /** The raw database, for what is not a store operation (the broker-run record, tests). */
  db(name: StoreName): SqliteDatabase;
  /** Each store answers a trivial query; false when it cannot (disk gone, file deleted). */
  check(): { name: StoreName; ok: boolean }[];
  close(): void;
}

export function openStoreSet(stateDir: string): StoreSet {
  const opened = new Map<StoreName, SqliteDatabase>();
  const db = (name: StoreName): SqliteDatabase => {
    const handle = opened.get(name);
    if (!handle) throw new Error(`store ${name} is not open`);
    return handle;
  };
  let stores: Stores;
  try {
    for (const def of STORE_DEFINITIONS) opened.set(def.name, openStore(stateDir, def));
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
    stateDir,
    db,
    check() {
      return STORE_DEFINITIONS.map((def) => {
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
