/**
 * One tool call, whatever carried it: an MCP tools/call (tool-server.ts) or a request to
 * the gateway's HTTP API for scripts (issue 49). The same refusal of a tool the caller is
 * not served, the same argument check (tool-arguments.ts), the same time budget, the same
 * broker procedure and the same failure (DELIVERY_UNKNOWN for an input call whose answer
 * was lost), so the API is no second path to the broker: only the wire differs.
 */
import { performance } from 'node:perf_hooks';
import { wasCutAfterSend, type BrokerClient, type BrokerFailure } from '@terminal-mcp/broker-client';
import type { SocketRole } from '@terminal-mcp/contract';
import { callBudget } from './call-budget.js';
import type { McpTool } from './define-tool.js';
import { checkToolArguments } from './tool-arguments.js';
import { deliveryUnknownFailure, describeToolFailure, ERROR_PRESENTATION, timeoutFailure, type DescribedFailure } from './tool-errors.js';

export interface ToolCallObserver {
  /** `ms` is unrounded elapsed milliseconds. */
  succeeded(tool: string, ms: number): void;
  failed(tool: string, ms: number, described: DescribedFailure, err: unknown): void;
}

export interface ToolCallOptions<R extends SocketRole> {
  broker: BrokerClient<R>;
  timeoutMs: number;
  /** Aborts when the client goes away or cancels. */
  cancelled: AbortSignal;
  observer: ToolCallObserver;
  /** See ToolContext.progress. */
  progress?: (progress: number, message: string) => void;
}

export type ToolCallOutcome = { ok: true; result: unknown; structured?: Record<string, unknown>; text: string } | { ok: false; failure: BrokerFailure };

/** Calls `tool` (served to this caller) with the caller's raw arguments. */
export async function callServedTool<R extends SocketRole>(tool: McpTool<R>, rawArgs: unknown, options: ToolCallOptions<R>): Promise<ToolCallOutcome> {
  const { observer, timeoutMs, cancelled } = options;
  const started = performance.now();
  const elapsedMs = () => performance.now() - started;
  const checked = checkToolArguments(rawArgs, { tool: tool.name, valid: Object.keys(tool.inputShape), aliases: tool.aliases, retired: tool.retired }, tool.inputSchema);
  if (!checked.ok) {
    observer.failed(tool.name, elapsedMs(), { failure: checked.failure, presentation: ERROR_PRESENTATION.INVALID_ARGUMENT }, undefined);
    return { ok: false, failure: checked.failure };
  }
  const budget = callBudget(cancelled, timeoutMs);
  try {
    const ctx = { broker: options.broker, signal: budget.signal, ...(options.progress ? { progress: options.progress } : {}) };
    const answer = await tool.invoke(checked.args, ctx);
    observer.succeeded(tool.name, elapsedMs());
    return { ok: true, ...answer };
  } catch (err) {
    // An input tool's call that reached the broker and then lost its answer (cut, out of
    // time, cancelled) may have typed: say exactly that, never "unavailable".
    const described =
      tool.delivers && (budget.timedOut() || cancelled.aborted || wasCutAfterSend(err))
        ? deliveryUnknownFailure(budget.timedOut() ? `the broker did not answer within ${Math.round(timeoutMs / 1000)} s` : cancelled.aborted ? 'the call was cancelled' : 'the connection to the broker broke during the call')
        : budget.timedOut()
          ? timeoutFailure(`the broker did not answer within ${Math.round(timeoutMs / 1000)} s`)
          : cancelled.aborted
            ? timeoutFailure('the call was cancelled')
            : describeToolFailure(err);
    observer.failed(tool.name, elapsedMs(), described, err);
    return { ok: false, failure: described.failure };
  } finally {
    budget.dispose();
  }
}

/** The refusal of a tool this caller is not served, recorded like a failed call. */
export function refuseUnservedTool(name: string, refusal: BrokerFailure, observer: ToolCallObserver): { ok: false; failure: BrokerFailure } {
  observer.failed(name, 0, { failure: refusal, presentation: ERROR_PRESENTATION[refusal.code] }, undefined);
  return { ok: false, failure: refusal };
}
