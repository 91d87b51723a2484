/**
 * What the adapter remembers between tmux round trips, in one object with one
 * invalidation rule: ANY notification that may change an announced fact
 * (announced-facts.ts: every one not known to be harmless, session creation, closing and
 * renaming among them) and any connection change (a restarted server reuses ids) forget
 * all of it at once.
 *
 * - Announced facts per session id, as of the last full listing: a session list then
 *   asks tmux only for the facts that change silently.
 * - Session name -> id: only a hint for `findSession`, which accepts a read by id only
 *   when tmux reports, in that same reply, exactly the name asked for (names are unique
 *   on a server). A stale entry therefore costs a full listing, never another session's
 *   facts.
 * - Session id -> its active pane as last seen, for `paneHint`.
 *
 * A listing takes a ticket before its round trip and stores with it; a ticket older than
 * the last forgetting stores nothing (tmux writes notifications and replies in order, so
 * a change that happened before tmux ran our command is read before its reply).
 */
import { mayChangeAnnouncedFacts, type AnnouncedFacts } from './announced-facts.js';
import type { ListedSession, PaneFacts, SessionFacts } from './types.js';

export interface SessionCacheTicket {
  readonly generation: number;
}

export interface SessionCache {
  /** Applies the one rule to a tmux notification. */
  notified(name: string): void;
  /** Forgets everything (connection change). */
  forget(): void;
  ticket(): SessionCacheTicket;
  /** True while nothing was forgotten since the ticket was taken. */
  current(ticket: SessionCacheTicket): boolean;
  /** The kept announced facts, with the ticket they are valid for; null when forgotten. */
  announced(): { ticket: SessionCacheTicket; bySession: ReadonlyMap<string, AnnouncedFacts> } | null;
  /** A full listing: its announced facts, its names, and each session's active pane (or,
   * for summaries, which carry no pane facts, the panes of sessions no longer listed
   * dropped; the others stay as last seen, a hint only). Ignored when the ticket is stale. */
  storeListing(ticket: SessionCacheTicket, bySession: Map<string, AnnouncedFacts>, listing: { sessions: readonly SessionFacts[] } | { summaries: readonly ListedSession[] }): void;
  /** The active pane of one session read by id. Ignored when the ticket is stale. */
  storePane(ticket: SessionCacheTicket, sessionId: string, pane: PaneFacts): void;
  idOf(name: string): string | undefined;
  paneHint(name: string): PaneFacts | null;
}

export function createSessionCache(): SessionCache {
  let generation = 0;
  let announcedFacts: Map<string, AnnouncedFacts> | null = null;
  let idByName = new Map<string, string>();
  let paneBySession = new Map<string, PaneFacts>();
  const forget = () => {
    generation++;
    announcedFacts = null;
    idByName = new Map();
    paneBySession = new Map();
  };
  const current = (ticket: SessionCacheTicket) => ticket.generation === generation;
  return {
    notified(name) {
      if (mayChangeAnnouncedFacts(name)) forget();
    },
    forget,
    ticket: () => ({ generation }),
    current,
    announced: () => (announcedFacts === null ? null : { ticket: { generation }, bySession: announcedFacts }),
    storeListing(ticket, bySession, listing) {
      if (!current(ticket)) return;
      announcedFacts = bySession;
      if ('sessions' in listing) {
        idByName = new Map(listing.sessions.map((s) => [s.name, s.sessionId]));
        paneBySession = new Map(listing.sessions.flatMap((s) => (s.activePane ? [[s.sessionId, s.activePane] as const] : [])));
      } else {
        idByName = new Map(listing.summaries.map((s) => [s.name, s.sessionId]));
        const listed = new Set(listing.summaries.map((s) => s.sessionId));
        for (const id of paneBySession.keys()) if (!listed.has(id)) paneBySession.delete(id);
      }
    },
    storePane(ticket, sessionId, pane) {
      if (current(ticket)) paneBySession.set(sessionId, pane);
    },
    idOf: (name) => idByName.get(name),
    paneHint(name) {
      const id = idByName.get(name);
      return id === undefined ? null : (paneBySession.get(id) ?? null);
    },
  };
}
