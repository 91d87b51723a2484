// Guards grants.db: a grant change and its audit event are committed together or not at all, and no row can hold input without read.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore, type SqliteDatabase } from './database.js';
import { grantsStore, grantsStoreDefinition } from './grants-store.js';

const pin = { serverPid: 42, sessionId: '$1', created: 1_700_000_000 };
let dir: string;
let db: SqliteDatabase;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'tmcp-grants-store-'));
  db = openStore(dir, grantsStoreDefinition);
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('grants store', () => {
  it('records every change with its actor and the state before it', () => {
    const store = grantsStore(db);
    store.apply([{ kind: 'grant', sessionName: 'build', identity: pin, input: false, expiresAt: null }], 'alice', 1000);
    store.apply([{ kind: 'grant', sessionName: 'build', identity: pin, input: true, expiresAt: 9000 }], 'bob', 2000);
    expect(store.find('build')).toMatchObject({ read: true, input: true, expiresAt: 9000, grantedBy: 'bob', createdAt: 1000, updatedAt: 2000 });
    expect(store.apply([{ kind: 'revoke', sessionName: 'build' }], 'carol', 3000)).toEqual([{ grant: undefined, changed: true }]);
    expect(store.apply([{ kind: 'revoke', sessionName: 'build' }], 'carol', 3500)).toEqual([{ grant: undefined, changed: false }]);
    expect(store.find('build')).toBeUndefined();

    const events = store.events({ limit: 10 });
    expect(events.map((e) => [e.actor, e.action, e.after, e.before])).toEqual([
      ['carol', 'revoke', { read: false, input: false, expiresAt: null }, { read: true, input: true, expiresAt: 9000 }],
      ['bob', 'grant', { read: true, input: true, expiresAt: 9000 }, { read: true, input: false, expiresAt: null }],
      ['alice', 'grant', { read: true, input: false, expiresAt: null }, null],
    ]);
    expect(events.every((e) => e.sessionName === 'build' && e.identity.sessionId === '$1')).toBe(true);
    expect(store.events({ limit: 10, before: events[1]!.id }).map((e) => e.actor)).toEqual(['alice']);
    expect(store.events({ limit: 10, sessionName: 'other' })).toEqual([]);
  });

  it('finds the grants of many names in one query, names matched exactly', () => {
    const store = grantsStore(db);
    const odd = ['build "x"', "it's", 'ünï %_ *', 'a\\b', '[1,2]'];
    store.apply([...odd, 'Build'].map((sessionName) => ({ kind: 'grant' as const, sessionName, identity: pin, input: false, expiresAt: null })), 'alice', 1000);
    const found = store.findMany([...odd, 'build', 'BUILD', 'missing', '%', '']);
    expect([...found.keys()].sort()).toEqual([...odd].sort());
    for (const name of odd) expect(found.get(name)).toEqual(store.find(name));
    expect(store.findMany([])).toEqual(new Map());
    store.apply([{ kind: 'revoke', sessionName: "it's" }], 'bob', 2000);
    expect(store.findMany(odd).has("it's")).toBe(false);
  });

  it('re-pinning to a new session under the same name starts a new grant', () => {
    const store = grantsStore(db);
    store.apply([{ kind: 'grant', sessionName: 'build', identity: pin, input: false, expiresAt: null }], 'alice', 1000);
    store.apply([{ kind: 'grant', sessionName: 'build', identity: { ...pin, sessionId: '$7' }, input: false, expiresAt: null }], 'alice', 2000);
    expect(store.find('build')).toMatchObject({ identity: { sessionId: '$7' }, createdAt: 2000 });
  });

  it('writes nothing when any change in a batch fails (no change without its event)', () => {
    const store = grantsStore(db);
    expect(() =>
      store.apply(
        [
          { kind: 'grant', sessionName: 'ok', identity: pin, input: false, expiresAt: null },
          // Violates the name CHECK: the whole transaction, events included, rolls back.
          { kind: 'grant', sessionName: '', identity: pin, input: false, expiresAt: null },
        ],
        'alice',
        1000,
      ),
    ).toThrow();
    expect(store.list()).toEqual([]);
    expect(store.events({ limit: 10 })).toEqual([]);
  });

  it('refuses a row that would grant input without read', () => {
    expect(() =>
      db
        .prepare(
          `INSERT INTO grants (session_name, server_pid, session_id, session_created, read, input, expires_at, granted_by, created_at, updated_at)
           VALUES ('x', 1, '$1', 1, 0, 1, NULL, 'a', 1, 1)`,
        )
        .run(),
    ).toThrow(/CHECK/);
  });
});
