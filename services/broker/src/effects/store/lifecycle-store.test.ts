// Guards the lifecycle store's node column (registry.db migration 4): rows from before it stay this host's, a node's session is recorded under node:name and node:$id so an identical tmux identity on this host is another row, and recovery's list of running rows is per host.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore } from './database.js';
import { lifecycleStore, type NewManagedSession } from './lifecycle-store.js';
import { registryStoreDefinition } from './registry-store.js';

let dir: string;
beforeEach(() => {
  dir = join(mkdtempSync(join(tmpdir(), 'tmcp-lifecycle-store-')), 'state');
});
afterEach(() => rmSync(dirname(dir), { recursive: true, force: true }));

const V3 = 3;

const session = (node: string | null): NewManagedSession => ({
  profile: 'agent',
  node,
  name: node === null ? 'agent-1' : `${node}:agent-1`,
  serverPid: 4242,
  sessionId: node === null ? '$3' : `${node}:$3`,
  sessionCreated: 1_700_000_000,
  paneId: '%7',
  cwd: '/srv/work',
  startedBy: 'test',
  previousId: null,
});

describe('lifecycle store on registry.db', () => {
  it("keeps rows from before the node column as this host's", () => {
    const v3 = openStore(dir, { ...registryStoreDefinition, migrations: registryStoreDefinition.migrations.slice(0, V3) });
    v3.prepare(
      `INSERT INTO managed_sessions (profile, name, server_pid, session_id, session_created, pane_id, cwd, started_at, started_by, state, state_changed_at)
       VALUES ('agent', 'agent-old', 4242, '$1', 1700000000, '%1', '/srv', 1, 'test', 'RUNNING', 1)`,
    ).run();
    v3.close();
    const db = openStore(dir, registryStoreDefinition);
    try {
      expect(lifecycleStore(db).runningOn(null)).toMatchObject([{ name: 'agent-old', node: null, sessionId: '$1' }]);
    } finally {
      db.close();
    }
  });

  it("records a node's session apart from this host's with the same tmux identity; recovery lists each host's apart", () => {
    const db = openStore(dir, registryStoreDefinition);
    try {
      const store = lifecycleStore(db);
      const here = store.recordStart(session(null), 1);
      const there = store.recordStart(session('gpu'), 1);
      expect(there).toMatchObject({ node: 'gpu', name: 'gpu:agent-1', sessionId: 'gpu:$3', state: 'RUNNING' });
      expect(store.byIdentity(4242, '$3', 1_700_000_000)?.id).toBe(here.id);
      expect(store.byIdentity(4242, 'gpu:$3', 1_700_000_000)?.id).toBe(there.id);
      expect(store.runningOn(null).map((r) => r.id)).toEqual([here.id]);
      expect(store.runningOn('gpu').map((r) => r.id)).toEqual([there.id]);
      expect(store.runningOn('cpu')).toEqual([]);
      expect(store.latestPerName().map((r) => r.name)).toEqual(['agent-1', 'gpu:agent-1']);
      expect(() => db.prepare("UPDATE managed_sessions SET node = '' WHERE id = ?").run(there.id)).toThrow(/CHECK/);
    } finally {
      db.close();
    }
  });
});
