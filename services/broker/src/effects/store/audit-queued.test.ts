// audit.db v4 (review mode): an existing v3 file is rebuilt to accept QUEUED, keeping every row, its id and the idempotency keys that point at it (real SQLite in a temp dir).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { auditStoreDefinition } from './audit-store.js';
import { openStore, schemaVersion } from './database.js';

let root: string | undefined;
afterEach(() => {
  if (root) rmSync(root, { recursive: true, force: true });
});

describe('audit.db v4', () => {
  it('migrates a v3 file with rows and idempotency keys, and then accepts QUEUED', () => {
    root = mkdtempSync(join(tmpdir(), 'tmcp-auditv4-'));
    const v3 = { ...auditStoreDefinition, migrations: auditStoreDefinition.migrations.slice(0, 3) };
    const old = openStore(root, v3);
    const insert = old.prepare("INSERT INTO input_audit (at, role, actor, tool, decision) VALUES (?, 'gateway', 'gateway:token', 'terminal_send_task', ?)");
    insert.run(1, 'SENT');
    const id = Number(insert.run(2, 'PENDING').lastInsertRowid);
    old.prepare("INSERT INTO task_idempotency (scope, key, fingerprint, created_at, audit_id) VALUES ('gateway', 'k1', 'f', 2, ?)").run(id);
    expect(() => insert.run(3, 'QUEUED')).toThrow(/CHECK/);
    old.close();

    const db = openStore(root, auditStoreDefinition);
    try {
      expect(schemaVersion(db)).toBe(4);
      expect(db.prepare('SELECT id, decision FROM input_audit ORDER BY id').all()).toEqual([
        { id: 1, decision: 'SENT' },
        { id, decision: 'PENDING' },
      ]);
      expect(db.prepare('SELECT audit_id FROM task_idempotency').all()).toEqual([{ audit_id: id }]);
      db.prepare("INSERT INTO input_audit (at, role, actor, tool, decision) VALUES (4, 'gateway', 'gateway:token', 'terminal_send_text', 'QUEUED')").run();
      expect(() => db.prepare("INSERT INTO input_audit (at, role, actor, tool, decision) VALUES (5, 'gateway', 'a', 't', 'NOPE')").run()).toThrow(/CHECK/);
      expect(db.pragma('foreign_key_check')).toEqual([]);
      const indexes = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'input_audit' AND name NOT LIKE 'sqlite_%'").all() as { name: string }[]).map((r) => r.name).sort();
      expect(indexes).toEqual(['input_audit_by_actor', 'input_audit_by_at', 'input_audit_by_binding', 'input_audit_by_session', 'input_audit_pending']);
    } finally {
      db.close();
    }
  });
});
