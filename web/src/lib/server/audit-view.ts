/** The `/audit` page: input attempts from the broker's input audit (newest first,
 * filtered by session, actor and decision, one page per opaque cursor) and the read-audit
 * summary of the last days. Filters come from the address bar and are checked here before
 * they reach the broker, which checks them again. */
import { AUDIT_DECISIONS, type AuditDecision, type InputAuditEntry, type ReadSummaryRow, LIMITS } from '@terminal-mcp/contract';
import { broker } from './broker.js';

export const AUDIT_PAGE_SIZE = 50;
export const READ_SUMMARY_DAYS = 7;

export interface AuditFilters {
  session: string;
  actor: string;
  decision: AuditDecision | '';
  cursor: string;
}

export interface AuditPageData {
  filters: AuditFilters;
  entries: InputAuditEntry[];
  nextCursor: string | null;
  reads: ReadSummaryRow[];
  readsTruncated: boolean;
  readDays: number;
}

const CURSOR = /^a\d{1,15}$/;
const ACTOR = /^[\w.@:-]{1,80}$/;

export function parseAuditFilters(params: URLSearchParams): AuditFilters {
  const session = params.get('session')?.trim() ?? '';
  const actor = params.get('actor')?.trim() ?? '';
  const decision = params.get('decision') ?? '';
  const cursor = params.get('cursor') ?? '';
  return {
    session: session.length <= LIMITS.sessionName ? session : '',
    actor: ACTOR.test(actor) ? actor : '',
    decision: (AUDIT_DECISIONS as readonly string[]).includes(decision) ? (decision as AuditDecision) : '',
    cursor: CURSOR.test(cursor) ? cursor : '',
  };
}

export async function loadAudit(filters: AuditFilters): Promise<AuditPageData> {
  const [page, reads] = await Promise.all([
    broker().audit.listInput.query({
      limit: AUDIT_PAGE_SIZE,
      ...(filters.session ? { session: filters.session } : {}),
      ...(filters.actor ? { actor: filters.actor } : {}),
      ...(filters.decision ? { decision: filters.decision } : {}),
      ...(filters.cursor ? { cursor: filters.cursor } : {}),
    }),
    broker().audit.readSummary.query({ days: READ_SUMMARY_DAYS }),
  ]);
  return { filters, entries: page.entries, nextCursor: page.next_cursor, reads: reads.rows, readsTruncated: reads.truncated, readDays: READ_SUMMARY_DAYS };
}
