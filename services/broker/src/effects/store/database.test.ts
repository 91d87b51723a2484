// Guards the store layer: files created private on first open, WAL on, migrations applied once, in order, atomically.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore, schemaVersion, type StoreDefinition } from './database.js';
import { openStoreSet } from './store-set.js';

let dir: string;
beforeEach(() => {
  dir = join(mkdtempSync(join(tmpdir(), 'tmcp-store-')), 'state');
});
// The temp dir itself, not only its state/ child (a run left five tmcp-store-* behind).
afterEach(() => rmSync(dirname(dir), { recursive: true, force: true }));

const notes: StoreDefinition = {
  name: 'notes-test',
  migrations: [
    (db) => db.exec('CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL) STRICT'),
    (db) => db.exec('ALTER TABLE notes ADD COLUMN author TEXT'),
  ],
};

describe('openStore', () => {
  it('creates the state dir 0700 and the file 0600 in WAL mode at the latest version', () => {
    const db = openStore(dir, notes);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, 'notes-test.db')).mode & 0o777).toBe(0o600);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(schemaVersion(db)).toBe(2);
    db.prepare('INSERT INTO notes (body, author) VALUES (?, ?)').run('hello', 'me');
    db.close();
  });

  it('keeps data and applies only new migrations on reopen', () => {
    const first = openStore(dir, { ...notes, migrations: notes.migrations.slice(0, 1) });
    first.prepare('INSERT INTO notes (body) VALUES (?)').run('kept');
    expect(schemaVersion(first)).toBe(1);
    first.close();
    const second = openStore(dir, notes);
    expect(schemaVersion(second)).toBe(2);
    expect(second.prepare('SELECT body, author FROM notes').all()).toEqual([{ body: 'kept', author: null }]);
    second.close();
  });

  it('rolls back a failing migration and leaves the previous version', () => {
    openStore(dir, { ...notes, migrations: notes.migrations.slice(0, 1) }).close();
    const broken: StoreDefinition = {
      name: notes.name,
      migrations: [notes.migrations[0]!, (db) => {
        db.exec('ALTER TABLE notes ADD COLUMN half TEXT');
        throw new Error('boom');
      }],
    };
    expect(() => openStore(dir, broken)).toThrow('boom');
    const db = openStore(dir, { ...notes, migrations: notes.migrations.slice(0, 1) });
    expect(schemaVersion(db)).toBe(1);
    const columns = db.prepare("SELECT name FROM pragma_table_info('notes')").all();
    expect(columns).toEqual([{ name: 'id' }, { name: 'body' }]);
    db.close();
  });

  it('refuses a database from a newer broker', () => {
    openStore(dir, notes).close();
    expect(() => openStore(dir, { ...notes, migrations: notes.migrations.slice(0, 1) })).toThrow(/newer than this broker/);
  });
});

describe('openStoreSet', () => {
  it('opens every store and reports them healthy, then unhealthy once closed', () => {
    const stores = openStoreSet(dir);
    expect(stores.check().every((s) => s.ok)).toBe(true);
    expect(stores.check().map((s) => s.name)).toContain('registry');
    stores.close();
    expect(stores.check().some((s) => !s.ok)).toBe(true);
  });
});
