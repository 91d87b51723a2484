// Guards the open-time store check: a damaged store never opens silently (named file and next step; tolerable ones set aside; audit.db refuses every write).
import { closeSync, existsSync, mkdtempSync, openSync, readdirSync, rmSync, statSync, truncateSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StoreDamagedError } from './database.js';
import { openStoreSet, type StoreName } from './store-set.js';

let dir: string;
beforeEach(() => {
  dir = join(mkdtempSync(join(tmpdir(), 'tmcp-integrity-')), 'state');
});
afterEach(() => rmSync(dirname(dir), { recursive: true, force: true }));

/** Makes every store, then gives `name`.db about 600 KB of rows, so that "its middle" is
 * table pages, not the header or the schema. */
function storesWithBulk(name: StoreName): string {
  openStoreSet(dir).close();
  const file = join(dir, `${name}.db`);
  const db = new Database(file);
  db.exec('CREATE TABLE bulk (id INTEGER PRIMARY KEY, body TEXT NOT NULL)');
  const insert = db.prepare('INSERT INTO bulk (body) VALUES (?)');
  db.transaction(() => {
    for (let i = 0; i < 600; i++) insert.run(`row ${i} `.padEnd(1000, 'x'));
  })();
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
  return file;
}

/** Overwrites `length` bytes at `offset` with a pattern no SQLite page starts with. */
function garble(file: string, offset: number, length: number): void {
  const fd = openSync(file, 'r+');
  try {
    writeSync(fd, Buffer.alloc(length, 0xa5), 0, length, offset);
  } finally {
    closeSync(fd);
  }
}

describe('stores checked when opened', () => {
  it('times each check and opens healthy stores as before', () => {
    const stores = openStoreSet(dir);
    try {
      expect(stores.opened.map((r) => r.outcome).every((o) => o === 'opened')).toBe(true);
      expect(stores.opened.every((r) => r.ok && r.detail === 'ok' && r.ms >= 0)).toBe(true);
      expect(stores.check().every((s) => s.ok)).toBe(true);
    } finally {
      stores.close();
    }
  });

  it('refuses a registry.db whose header is garbled, naming the file and the next step', () => {
    const file = storesWithBulk('registry');
    garble(file, 0, 100);
    let thrown: unknown;
    try {
      openStoreSet(dir).close();
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(StoreDamagedError);
    const message = (thrown as Error).message;
    expect(message).toContain(file);
    expect(message).toContain('terminal-mcp doctor');
    expect(message).toContain('terminal-mcp restore');
  });

  it('refuses a notes.db cut in half', () => {
    const file = storesWithBulk('notes');
    truncateSync(file, Math.floor(statSync(file).size / 2));
    expect(() => openStoreSet(dir).close()).toThrow(/notes\.db is damaged .*terminal-mcp doctor/);
  });

  it('refuses a grants.db with 8 KB garbled in its middle', () => {
    const file = storesWithBulk('grants');
    garble(file, Math.floor(statSync(file).size / 2), 8192);
    expect(() => openStoreSet(dir).close()).toThrow(/grants\.db is damaged/);
  });

  it('sets a damaged notify.db aside and starts it empty', () => {
    const file = storesWithBulk('notify');
    garble(file, Math.floor(statSync(file).size / 2), 8192);
    const stores = openStoreSet(dir);
    try {
      const report = stores.opened.find((r) => r.name === 'notify')!;
      expect(report.outcome).toBe('set-aside');
      expect(report.setAsideTo).toMatch(/notify\.db\.damaged-/);
      expect(existsSync(report.setAsideTo!)).toBe(true);
      expect(readdirSync(dir).filter((f) => f.startsWith('notify.db.damaged-')).length).toBeGreaterThan(0);
      expect(stores.check().find((s) => s.name === 'notify')!.ok).toBe(true);
    } finally {
      stores.close();
    }
  });

  it('keeps a damaged audit.db but refuses every write to it and reports it not ok', () => {
    const file = storesWithBulk('audit');
    const before = statSync(file);
    garble(file, Math.floor(before.size / 2), 8192);
    const stores = openStoreSet(dir);
    try {
      expect(stores.opened.find((r) => r.name === 'audit')!.outcome).toBe('refusing-writes');
      const audit = stores.check().find((s) => s.name === 'audit')!;
      expect(audit.ok).toBe(false);
      expect(audit.detail).toMatch(/audit\.db is damaged .*terminal-mcp doctor/);
      // The input path's first write (its PENDING row) fails, so nothing is typed.
      expect(() => stores.audit.recoverPending(Date.now())).toThrow(/readonly/i);
      expect(() => stores.db('audit').exec("INSERT INTO bulk (body) VALUES ('x')")).toThrow(/readonly/i);
    } finally {
      stores.close();
    }
    expect(statSync(file).size).toBe(before.size);
  });
});
