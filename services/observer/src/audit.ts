/**
 * The observer's record of every tool call, with actor `observer:<user>`.
 *
 * Two places record a call. (1) The broker: the observer names the operator who approved
 * the access token in the `x-terminal-mcp-actor` header (see actor.ts), so the broker's
 * context actor is `observer:<user>`, and its read audit (audit.db, `read_audit`) records
 * every terminal read under that actor. (2) Here: every tool call, terminal and source,
 * with its client and outcome, as an `audit.tool_call` log event (pino, stderr).
 *
 * AUDIT SEAM: source reads (`source.*`) are not in audit.db yet. When the broker audits
 * them (wrapping the source procedures in `auditedRead`, as `sessions.*` does), they will
 * carry `observer:<user>` with no change here; if the broker ever offers a tool-call audit
 * entry, replace the body of `recordToolCall` and keep the call sites.
 */
import type { ErrorCode } from '@terminal-mcp/contract';
import type { Logger } from 'pino';

export interface ToolCallRecord {
  /** `observer:<user>`: the operator account that approved the access token. */
  actor: string;
  clientId: string;
  tool: string;
  outcome: 'ok' | 'error';
  errorCode?: ErrorCode;
  correlationId?: string;
  ms: number;
}

export function recordToolCall(log: Logger, record: ToolCallRecord): void {
  log.info({ event: 'audit.tool_call', ...record }, 'tool call');
}
