// Guards bindings.db's node column: the migration that adds it keeps every earlier row as this host's (node NULL), and a binding on a node stores and reads back its node.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bindingsStoreDefinition, bindingStore, type BindingRecord } from './bindings-store.js';
import { openStore, schemaVersion } from './database.js';

let dir: string;
beforeEach(() => {
  dir = join(mkdtempSync(join(tmpdir(), 'tmcp-bindings-')), 'state');
});
afterEach(() => rmSync(dirname(dir), { recursive: true, force: true }));

const record = (name: string, node: string | null): BindingRecord => ({
  name,
  node,
  sessionName: 'agent-1',
  serverPid: 4242,
  sessionId: '$3',
  sessionCreated: 1_700_000_000,
  paneId: '%7',
  panePid: 4343,
  inputEnabled: false,
  createdAt: 1,
  updatedAt: 2,
  updatedBy: 'test',
});

describe('bindings.db', () => {
  it("keeps the rows from before the node column as this host's", () => {
    const v1 = openStore(dir, { ...bindingsStoreDefinition, migrations: bindingsStoreDefinition.migrations.slice(0, 1) });
    v1.prepare(
      `INSERT INTO bindings (name, session_name, server_pid, session_id, session_created, pane_id, pane_pid, input_enabled, created_at, updated_at, updated_by)
       VALUES ('old', 'agent-1', 4242, '$3', 1700000000, '%7', 4343, 1, 1, 2, 'test')`,
    ).run();
    v1.close();
    const db = openStore(dir, bindingsStoreDefinition);
    try {
      expect(schemaVersion(db)).toBe(bindingsStoreDefinition.migrations.length);
      expect(bindingStore(db).get('old')).toMatchObject({ name: 'old', node: null, sessionName: 'agent-1', paneId: '%7', inputEnabled: true });
    } finally {
      db.close();
    }
  });

  it('stores the node a binding is pinned on, and remaps it between hosts', () => {
    const db = openStore(dir, bindingsStoreDefinition);
    try {
      const store = bindingStore(db);
      store.update('b', () => ({ result: null, write: record('b', 'gpu') }));
      expect(store.get('b')).toEqual(record('b', 'gpu'));
      store.update('b', () => ({ result: null, write: record('b', null) }));
      expect(store.get('b')?.node).toBeNull();
      expect(() => store.update('c', () => ({ result: null, write: record('c', '') }))).toThrow();
    } finally {
      db.close();
    }
  });
});
