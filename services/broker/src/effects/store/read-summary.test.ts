// The read-audit summary groups reads by UTC day, actor and session, newest day first, and counts lines and errors (real audit.db in a temp dir).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openStoreSet, type StoreSet } from './store-set.js';

let root: string | undefined;
let stores: StoreSet | undefined;
afterEach(() => {
  stores?.close();
  if (root) rmSync(root, { recursive: true, force: true });
});

const read = (at: number, actor: string, sessionName: string | null, lineCount: number | null, errorCode: string | null = null) => ({
  at,
  role: 'web',
  actor,
  tool: 'terminal_tail',
  sessionName,
  sessionId: null,
  paneId: null,
  lineCount,
  errorCode,
});

describe('auditStore.summarizeReads', () => {
  it('groups per day, actor and session, and honours since and limit', () => {
    root = mkdtempSync(join(tmpdir(), 'tmcp-readsum-'));
    stores = openStoreSet(root);
    const audit = stores.audit;
    const day1 = Date.parse('2026-03-01T10:00:00Z');
    const day2 = Date.parse('2026-03-02T09:00:00Z');
    audit.insertReads([
      read(day1, 'gateway:chatgpt', 'claude-a', 10),
      read(day1 + 1000, 'gateway:chatgpt', 'claude-a', 5),
      read(day1 + 2000, 'observer:claude', 'claude-a', null, 'SESSION_NOT_ALLOWED'),
      read(day2, 'gateway:chatgpt', 'claude-a', 1),
      read(day2 + 10, 'gateway:chatgpt', null, 3),
    ]);
    expect(audit.summarizeReads(0, 10)).toEqual([
      { day: '2026-03-02', actor: 'gateway:chatgpt', sessionName: null, reads: 1, lines: 3, errors: 0, lastAt: day2 + 10 },
      { day: '2026-03-02', actor: 'gateway:chatgpt', sessionName: 'claude-a', reads: 1, lines: 1, errors: 0, lastAt: day2 },
      { day: '2026-03-01', actor: 'gateway:chatgpt', sessionName: 'claude-a', reads: 2, lines: 15, errors: 0, lastAt: day1 + 1000 },
      { day: '2026-03-01', actor: 'observer:claude', sessionName: 'claude-a', reads: 1, lines: 0, errors: 1, lastAt: day1 + 2000 },
    ]);
    expect(audit.summarizeReads(day2, 10).map((r) => r.day)).toEqual(['2026-03-02', '2026-03-02']);
    expect(audit.summarizeReads(0, 1)).toHaveLength(1);
  });
});
