/** All stores the broker opens, opened together at start-up and checked by readiness. */
import { openStore, type SqliteDatabase, type StoreDefinition } from './database.js';
import { auditStoreDefinition } from './audit-store.js';
import { bindingsStoreDefinition } from './bindings-store.js';
import { grantsStoreDefinition } from './grants-store.js';
import { leasesStoreDefinition } from './leases-store.js';
import { notesStoreDefinition } from './notes-store.js';
import { oauthStoreDefinition } from './oauth-store.js';
import { registryStoreDefinition } from './registry-store.js';
import { supervisorStoreDefinition } from './supervisor-store.js';
import { webauthStoreDefinition } from './webauth-store.js';

export const STORE_DEFINITIONS = [registryStoreDefinition, webauthStoreDefinition, grantsStoreDefinition, auditStoreDefinition, bindingsStoreDefinition, leasesStoreDefinition, oauthStoreDefinition, notesStoreDefinition, supervisorStoreDefinition] as const satisfies readonly StoreDefinition[];
export type StoreName = (typeof STORE_DEFINITIONS)[number]['name'];

export interface StoreSet {
  readonly stateDir: string;
  db(name: StoreName): SqliteDatabase;
  /** Each store answers a trivial query; false when it cannot (disk gone, file deleted). */
  check(): { name: StoreName; ok: boolean }[];
  close(): void;
}

export function openStoreSet(stateDir: string): StoreSet {
  const opened = new Map<StoreName, SqliteDatabase>();
  try {
    for (const def of STORE_DEFINITIONS) opened.set(def.name, openStore(stateDir, def));
  } catch (err) {
    for (const db of opened.values()) db.close();
    throw err;
  }
  return {
    stateDir,
    db(name) {
      const db = opened.get(name);
      if (!db) throw new Error(`store ${name} is not open`);
      return db;
    },
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
      for (const db of opened.values()) db.close();
      opened.clear();
    },
  };
}
