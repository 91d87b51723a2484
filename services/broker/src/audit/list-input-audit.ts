/** terminal_list_input_audit: input attempts newest first, filtered and paged. The cursor
 * is opaque to callers (`a<id>`: the next page holds older rows than that id). */
import { AppError, INPUT_LIMITS, type InputAuditEntry, type ListInputAuditInput, type ListInputAuditOutput } from '@terminal-mcp/contract';
import type { StoredAttempt } from '../effects/store/audit-store.js';
import type { Logger } from 'pino';
import type { AuditStore } from '../effects/store/audit-store.js';

const CURSOR_RE = /^a(\d{1,15})$/;
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

function entry(a: StoredAttempt): InputAuditEntry {
  return {
    id: a.id,
    at: new Date(a.at).toISOString(),
    finished_at: iso(a.finishedAt),
    actor: a.actor,
    tool: a.tool,
    session: a.sessionName,
    binding: a.binding,
    session_id: a.sessionId,
    pane_id: a.paneId,
    decision: a.decision,
    error_code: a.errorCode,
    text_length: a.textLength,
    text_hmac: a.textHmac,
    preview: a.preview,
    keys: a.keys === null ? null : [...a.keys],
    receipt: a.receipt,
  };
}

/** Whose rows a caller may see: one actor's (a gateway client) or every row. */
export type AuditScope = { actor: string } | 'all';

export function listInputAudit(deps: { input: { audit: AuditStore }; log: Logger }, input: ListInputAuditInput, scope: AuditScope): ListInputAuditOutput {
  let beforeId: number | undefined;
  if (input.cursor !== undefined) {
    const m = CURSOR_RE.exec(input.cursor);
    if (!m) throw new AppError('INVALID_ARGUMENT', 'cursor: pass next_cursor of the previous page unchanged');
    beforeId = Number(m[1]);
  }
  const limit = input.limit ?? INPUT_LIMITS.auditPageDefault;
  // Scoped callers filter within their own rows only; naming another actor finds nothing.
  if (scope !== 'all' && input.actor !== undefined && input.actor !== scope.actor) return { entries: [], next_cursor: null };
  const actor = scope === 'all' ? input.actor : scope.actor;
  let rows: StoredAttempt[];
  try {
    rows = deps.input.audit.list({
      ...(input.session !== undefined ? { sessionName: input.session } : {}),
      ...(input.binding !== undefined ? { binding: input.binding } : {}),
      ...(actor !== undefined ? { actor } : {}),
      ...(input.decision !== undefined ? { decision: input.decision } : {}),
      ...(input.since !== undefined ? { since: Date.parse(input.since) } : {}),
      ...(input.until !== undefined ? { until: Date.parse(input.until) } : {}),
      ...(beforeId !== undefined ? { beforeId } : {}),
      limit: limit + 1,
    });
  } catch (err) {
    deps.log.error({ event: 'audit.read_failed', err: (err as Error).message }, 'audit log could not be read');
    throw new AppError('AUDIT_UNAVAILABLE', 'the audit log could not be read');
  }
  const page = rows.slice(0, limit);
  const more = rows.length > limit;
  return { entries: page.map(entry), next_cursor: more && page.length > 0 ? `a${page.at(-1)!.id}` : null };
}
