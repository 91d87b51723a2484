import { describe, expect, it } from 'vitest';
import { createMcpSessionTable, type LiveSession } from './mcp-sessions.js';

const session = (principal: string) => {
  const s = { principal, closed: 0, close: () => void s.closed++ };
  return s satisfies LiveSession;
};

describe('live MCP sessions', () => {
  it('answers only the principal that created a session', () => {
    const table = createMcpSessionTable<ReturnType<typeof session>>();
    const a = session('A');
    table.add('id-a', a);
    expect(table.lookup('id-a', 'A')).toEqual({ kind: 'live', session: a });
    expect(table.lookup('id-a', 'B')).toEqual({ kind: 'foreign' });
    expect(table.lookup('id-b', 'A')).toEqual({ kind: 'none' });
    expect(table.lookup(undefined, 'A')).toEqual({ kind: 'none' });
    expect(a.closed).toBe(0);
  });

  it('is bounded: the least recently used session is closed first', () => {
    const table = createMcpSessionTable<ReturnType<typeof session>>({ max: 2 });
    const [a, b, c] = [session('P'), session('P'), session('P')];
    table.add('a', a);
    table.add('b', b);
    table.lookup('a', 'P'); // a is now the most recent
    table.add('c', c);
    expect(table.size).toBe(2);
    expect(b.closed).toBe(1);
    expect(table.lookup('b', 'P').kind).toBe('none');
    expect(table.lookup('a', 'P').kind).toBe('live');
  });

  it('closes sessions idle longer than idleMs, keeps used ones', () => {
    let t = 0;
    const table = createMcpSessionTable<ReturnType<typeof session>>({ idleMs: 1000, now: () => t });
    const [a, b] = [session('P'), session('P')];
    table.add('a', a);
    table.add('b', b);
    t = 900;
    table.lookup('b', 'P');
    t = 1500;
    expect(table.lookup('a', 'P').kind).toBe('none');
    expect(a.closed).toBe(1);
    expect(table.lookup('b', 'P').kind).toBe('live');
    table.closeAll();
    expect(b.closed).toBe(1);
    expect(table.size).toBe(0);
  });

  it('forgets a session whose transport closed, without closing it again', () => {
    const table = createMcpSessionTable<ReturnType<typeof session>>();
    const a = session('P');
    table.add('a', a);
    table.remove('a', session('P')); // another object under the same id: kept
    expect(table.lookup('a', 'P').kind).toBe('live');
    table.remove('a', a);
    expect(table.lookup('a', 'P').kind).toBe('none');
    expect(a.closed).toBe(0);
  });
});
