// The adapter's one cache forgets names, panes and announced facts together, on any notification that may change an announced fact or a connection change, and a listing whose ticket predates the forgetting stores nothing.
import { describe, expect, it } from 'vitest';
import { announcedFactsOf } from './announced-facts.js';
import { createSessionCache } from './session-cache.js';
import type { PaneFacts, SessionFacts } from './types.js';

const pane = (paneId: string): PaneFacts => ({ paneId, panePid: 100, inMode: false, width: 80, height: 24, historySize: 0, windowActivity: 1, cursor: { x: 0, y: 0, visible: true }, currentCommand: 'bash' });
const session = (name: string, sessionId: string, paneId: string): SessionFacts => ({ serverPid: 1, sessionId, name, created: 10, attached: 0, windows: 1, activity: 1, activePane: pane(paneId) });
const listing = [session('alpha', '$1', '%1'), session('beta', '$2', '%2')];
const facts = () => new Map(listing.map((s) => [s.sessionId, announcedFactsOf(s)]));

function filled() {
  const cache = createSessionCache();
  cache.storeListing(cache.ticket(), facts(), { sessions: listing });
  return cache;
}

describe('session cache', () => {
  it('keeps what a full listing found', () => {
    const cache = filled();
    expect(cache.idOf('beta')).toBe('$2');
    expect(cache.paneHint('alpha')?.paneId).toBe('%1');
    expect(cache.announced()?.bySession.size).toBe(2);
  });

  it.each(['sessions-changed', 'session-renamed', 'window-add', 'unlinked-window-close', 'some-future-notification'])('forgets all of it on %%%s', (name) => {
    const cache = filled();
    cache.notified(name);
    expect([cache.idOf('beta'), cache.paneHint('alpha'), cache.announced()]).toEqual([undefined, null, null]);
  });

  it.each(['output', 'window-renamed', 'client-detached', 'pane-mode-changed'])('keeps it on harmless %%%s', (name) => {
    const cache = filled();
    cache.notified(name);
    expect(cache.idOf('beta')).toBe('$2');
    expect(cache.announced()).not.toBeNull();
  });

  it('forgets all of it on a connection change', () => {
    const cache = filled();
    cache.forget();
    expect([cache.idOf('alpha'), cache.announced()]).toEqual([undefined, null]);
  });

  it('stores nothing from a listing that raced a change', () => {
    const cache = createSessionCache();
    const ticket = cache.ticket();
    cache.notified('sessions-changed');
    cache.storeListing(ticket, facts(), { sessions: listing });
    cache.storePane(ticket, '$1', pane('%9'));
    expect([cache.idOf('alpha'), cache.paneHint('alpha'), cache.announced()]).toEqual([undefined, null, null]);
    expect(cache.current(ticket)).toBe(false);
  });

  it('a summary listing keeps the panes of sessions still listed and drops the rest', () => {
    const cache = filled();
    cache.storeListing(cache.ticket(), facts(), { summaries: [{ ...listing[0]!, activePane: { currentCommand: 'vim', inMode: false } }] });
    expect(cache.paneHint('alpha')?.paneId).toBe('%1');
    expect(cache.idOf('beta')).toBeUndefined();
  });
});
