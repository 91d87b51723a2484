/**
 * The observer's record of every tool call, with actor `observer:<user>`.
 *
 * AUDIT SEAM: the broker's audit log (audit.db) records input attempts and pane-content
 * reads with the actor the broker derives from the `x-terminal-mcp-actor` header; the
 * observer names the operator who approved the token there (see `actorStore` in
 * server.ts), so reads through the observer appear as `observer:<user>`. Source reads and
 * the tool-level outcome are not in audit.db yet: until the broker offers an audit entry
 * for them, each call is logged here as an `audit.tool_call` event (pino, stderr). When
 * it does, replace the body of `recordToolCall` and keep the call sites.
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
