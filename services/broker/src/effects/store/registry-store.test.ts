// Guards registry.db's node column (migration v5): the rows from before it stay, as this host's (node NULL), with their notes; the node is part of a row's identity (one identity on two hosts is two rows, the same identity twice on one host is refused), and the identity lookup uses the unique index.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore, schemaVersion } from './database.js';
import { registryStoreDefinition, sessionRegistryStore } from './registry-store.js';

let dir: string;
beforeEach(() => {
  dir = join(mkdtempSync(join(tmpdir(), 'tmcp-registry-store-')), 'state');
});
afterEach(() => rmSync(dirname(dir), { recursive: true, force: true }));

describe('registry.db', () => {
  it("keeps the rows from before the node column as this host's, and makes the node part of the identity", () => {
    const v3 = openStore(dir, { ...registryStoreDefinition, migrations: registryStoreDefinition.migrations.slice(0, 3) });
    v3.prepare(
      `INSERT INTO session_registry (name, server_pid, session_id, session_created, status, first_seen, last_seen, status_changed_at, notes)
       VALUES ('old', 5, '$1', 100, 'KILLED', 1, 2, 3, 'kept')`,
    ).run();
    v3.close();
    const db = openStore(dir, registryStoreDefinition);
    try {
      expect(schemaVersion(db)).toBe(registryStoreDefinition.migrations.length);
      const store = sessionRegistryStore(db);
      expect(store.list()).toEqual([expect.objectContaining({ node: null, name: 'old', status: 'KILLED', notes: 'kept' })]);
      // The same identity on a node is a row of its own; this host's row is untouched.
      store.reconcile('gpu', [{ name: 'old', serverPid: 5, sessionId: '$1', sessionCreated: 100, currentCommand: null }], 5, 10);
      expect(store.list().map((r) => [r.node, r.name, r.status])).toEqual([
        ['gpu', 'old', 'ACTIVE'],
        [null, 'old', 'KILLED'],
      ]);
      const insert = (node: string | null) =>
        db
          .prepare(`INSERT INTO session_registry (node, name, server_pid, session_id, session_created, status, first_seen, last_seen, status_changed_at) VALUES (?, 'dup', 5, '$1', 100, 'ACTIVE', 1, 1, 1)`)
          .run(node);
      expect(() => insert(null)).toThrow(/UNIQUE/);
      expect(() => insert('gpu')).toThrow(/UNIQUE/);
      const plan = db
        .prepare("EXPLAIN QUERY PLAN SELECT id FROM session_registry WHERE ifnull(node, '') = ifnull(?, '') AND server_pid = ? AND session_id = ? AND session_created = ?")
        .all('gpu', 5, '$1', 100) as { detail: string }[];
      expect(plan.map((p) => p.detail).join(' ')).toContain('session_registry_identity');
    } finally {
      db.close();
    }
  });
});
