// Guards the cleanup plan for node rows (docs/nodes.md): a node's row is judged by its
// `node:session` name, alive when the registry has that node's session ACTIVE (the
// cleanup cannot ask a node's tmux), never by a session of this host with the same bare name.
import { describe, expect, it } from 'vitest';
import { planRegistryCleanup, registryName, type RegistryRecord } from './registry-cleanup.js';

const OLD = 0;
const NOW = 30 * 86_400_000;
let nextId = 1;
const row = (node: string | null, name: string, status: RegistryRecord['status']): RegistryRecord => ({
  id: nextId++,
  node,
  name,
  serverPid: 1,
  sessionId: `$${nextId}`,
  sessionCreated: 1000,
  status,
  firstSeen: OLD,
  lastSeen: OLD,
  statusChangedAt: OLD,
  lastCommand: null,
  conversationId: null,
  notes: null,
  lastScreen: null,
  lastScreenAt: null,
  deletedAt: null,
  deletedBy: null,
});

describe('registry cleanup of node rows', () => {
  it('names a node row node:session and judges it on that name', () => {
    const rows = [
      row('gpu', 'work', 'KILLED'),
      // The same name lives again on the node (a new session): the old row is held back.
      row('gpu', 'work', 'ACTIVE'),
      // A session of this host named like a node's gone one does not hold it back.
      row('gpu', 'build', 'MISSING'),
      row('gpu', 'ctl', 'KILLED'),
      row(null, 'work', 'KILLED'),
    ];
    expect(registryName(rows[0]!)).toBe('gpu:work');
    expect(registryName(rows[4]!)).toBe('work');
    const plan = planRegistryCleanup(rows, { liveNames: new Set(['build']), protectedNames: new Set(['gpu:ctl']), minAgeDays: 7, now: NOW });
    expect(plan.selected.map(registryName).sort()).toEqual(['gpu:build', 'work']);
    expect(plan.needsReview.map((r) => [registryName(r.row), r.guard])).toEqual([
      ['gpu:work', 'LIVE_NOW'],
      ['gpu:ctl', 'PROTECTED'],
    ]);
  });
});
