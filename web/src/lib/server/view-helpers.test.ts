// The connectors and history pages derive "last used" from the newest token of a client's live grants and accept only a positive integer as the history cursor.
import type { OAuthGrantSummary } from '@terminal-mcp/contract';
import { describe, expect, it } from 'vitest';
import { lastUseByClient } from './connectors-view.js';
import { parseCursor } from './history-view.js';

const grant = (clientId: string, lastRefreshedAt: string): OAuthGrantSummary => ({
  grantId: `${clientId}-${lastRefreshedAt}`,
  clientId,
  clientName: clientId,
  username: 'alice',
  scope: 'observer:read',
  resource: 'https://observer.example/mcp',
  createdAt: '2025-01-01T00:00:00.000Z',
  lastRefreshedAt,
  expiresAt: null,
});

describe('lastUseByClient', () => {
  it('takes the newest refresh per client and leaves clients without grants out', () => {
    const last = lastUseByClient([
      grant('a', '2025-03-01T10:00:00.000Z'),
      grant('a', '2025-03-02T09:00:00.000Z'),
      grant('b', '2025-02-01T00:00:00.000Z'),
      grant('a', '2025-03-01T23:00:00.000Z'),
    ]);
    expect(Object.fromEntries(last)).toEqual({ a: '2025-03-02T09:00:00.000Z', b: '2025-02-01T00:00:00.000Z' });
    expect(last.has('c')).toBe(false);
  });
});

describe('parseCursor', () => {
  it.each([
    [null, null],
    ['', null],
    ['0', null],
    ['-3', null],
    ['1.5', null],
    ['12abc', null],
    ['9999999999999999', null],
    ['1', 1],
    ['4711', 4711],
  ])('%s -> %s', (raw, cursor) => {
    expect(parseCursor(raw)).toBe(cursor);
  });
});
