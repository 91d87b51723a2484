/**
 * leases.db: one row per pane someone is typing into. A sender takes the pane's lease in
 * an IMMEDIATE transaction before sending and gives it back after, so two sends to one
 * pane never interleave (within this broker or across processes sharing the state
 * directory). A lease ends by itself at `expires_at`: a broker that died holding one
 * blocks that pane for at most the lease time. Times are milliseconds since the epoch.
 */
import type { SqliteDatabase, StoreDefinition } from './database.js';

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

export interface LeaseStore {
  /** Takes the lease when it is free, expired or already ours; false when someone else
   * holds it. */
  tryAcquire(paneKey: string, holder: string, now: number, ttlMs: number): boolean;
  /** Gives the lease back if we still hold it. */
  release(paneKey: string, holder: string): void;
  holderOf(paneKey: string, now: number): string | undefined;
}

export function leaseStore(db: SqliteDatabase): LeaseStore {
  const q = {
    get: db.prepare<[string], { holder: string; expires_at: number }>('SELECT holder, expires_at FROM pane_leases WHERE pane_key = ?'),
    upsert: db.prepare<[string, string, number, number]>(
      `INSERT INTO pane_leases (pane_key, holder, acquired_at, expires_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (pane_key) DO UPDATE SET holder = excluded.holder, acquired_at = excluded.acquired_at, expires_at = excluded.expires_at`,
    ),
    release: db.prepare<[string, string]>('DELETE FROM pane_leases WHERE pane_key = ? AND holder = ?'),
  };
  const acquire = db.transaction((paneKey: string, holder: string, now: number, ttlMs: number): boolean => {
    const row = q.get.get(paneKey);
    if (row && row.holder !== holder && row.expires_at > now) return false;
    q.upsert.run(paneKey, holder, now, now + ttlMs);
    return true;
  });
  const store: LeaseStore = {
    tryAcquire: (paneKey, holder, now, ttlMs) => acquire.immediate(paneKey, holder, now, ttlMs),
    release: (paneKey, holder) => {
      q.release.run(paneKey, holder);
    },
    holderOf: (paneKey, now) => {
      const row = q.get.get(paneKey);
      return row && row.expires_at > now ? row.holder : undefined;
    },
  };
  return store;
}
