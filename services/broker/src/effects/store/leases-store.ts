/**
 * leases.db: once one row per pane someone was typing into, polled by senders. Input no
 * longer uses it: one sender per pane is an in-memory lock (input/pane-lock.ts), which
 * the broker's single-instance lock makes enough. The store stays defined (and is still
 * created, empty) so existing state directories and backups that list it remain valid
 * to open and restore; nothing reads or writes its table.
 */
import type { StoreDefinition } from './database.js';

export const leasesStoreDefinition: StoreDefinition = {
  name: 'leases',
  migrations: [
    (db) => {
      db.exec(`CREATE TABLE pane_leases (
        pane_key TEXT PRIMARY KEY,
        holder TEXT NOT NULL,
        acquired_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL
      ) STRICT`);
    },
  ],
};
