/** The `/history` page: the broker's grant change log (who granted or revoked what, and
 * the flags before and after), newest first, one page per `cursor`; the grants left
 * behind by sessions that no longer exist; and the connectors' OAuth revocations. */
import { GRANT_LIMITS, type GrantEvent, type GrantView, type OAuthRevocation } from '@terminal-mcp/contract';
import { broker } from './broker.js';

export const HISTORY_PAGE_SIZE = GRANT_LIMITS.eventsPageDefault;

export interface HistoryPageData {
  events: GrantEvent[];
  /** Pass back as `?cursor=` for older events; null on the last page. */
  nextCursor: number | null;
  /** The cursor this page was loaded with (null: the newest page). */
  cursor: number | null;
  orphanedGrants: GrantView[];
  /** Connector (OAuth) revocations, newest first; on the newest page only. */
  oauthRevocations: OAuthRevocation[];
}

/** `?cursor=` from the address bar: a positive integer, anything else means "newest". */
export function parseCursor(raw: string | null): number | null {
  if (raw === null || !/^[1-9]\d{0,14}$/.test(raw)) return null;
  const n = Number(raw);
  return Number.isSafeInteger(n) ? n : null;
}

export async function loadHistory(cursor: number | null): Promise<HistoryPageData> {
  const [page, list, revocations] = await Promise.all([
    broker().grants.events.query({ limit: HISTORY_PAGE_SIZE, ...(cursor === null ? {} : { cursor }) }),
    broker().grants.list.query(),
    cursor === null ? broker().oauthAdmin.listRevocations.query({}) : Promise.resolve([]),
  ]);
  return { events: page.events, nextCursor: page.next_cursor, cursor, orphanedGrants: list.orphaned_grants, oauthRevocations: revocations };
}
