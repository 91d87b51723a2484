/**
 * The scripts' API (issue 49): `/api/v1/<route>` answers the operation table's row for it
 * by calling that row's gateway tool exactly as /mcp would (@terminal-mcp/mcp-kit
 * callServedTool): the caller was authenticated as for /mcp, its catalogue (toolsets,
 * OAuth scopes) decides what it is served, the broker procedure decides and audits, and
 * the answer is the procedure's JSON. A refusal or failure is `{code, message, hint}` with
 * the HTTP status of its code (shared/contract ERROR_SPECS); a request the route cannot
 * read is a 4xx, never a 500. One difference from MCP, for scripts that read the status: a
 * BLOCKED receipt (terminal_send_task, project_dispatch) answers with its refusal's status.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { BrokerClient, BrokerFailure } from '@terminal-mcp/broker-client';
import { ERROR_SPECS, isErrorCode, type ErrorCode } from '@terminal-mcp/contract';
import { readLimitedBody, sendJson } from '@terminal-mcp/http-guard';
import { callServedTool, refuseUnservedTool, type ToolCallObserver, type ToolCallOutcome } from '@terminal-mcp/mcp-kit';
import type { GatewayCatalogue } from '../../catalogue.js';
import { requestArguments } from './arguments.js';
import { API_PREFIX, matchApiRoute } from './routes.js';

export interface ApiDeps<A> {
  timeoutMs: number;
  maxBodyBytes: number;
  observer: ToolCallObserver;
  catalogueFor(caller: A): Promise<GatewayCatalogue>;
  /** A broker client bound to the caller's identity (as /mcp's server gets). */
  brokerFor(caller: A): BrokerClient<'gateway'>;
}

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];

function sendFailure(res: ServerResponse, failure: BrokerFailure, headers: Record<string, string> = {}): void {
  sendJson(
    res,
    ERROR_SPECS[failure.code].http,
    { code: failure.code, message: failure.message, hint: failure.hint, ...(failure.correlationId ? { correlation_id: failure.correlationId } : {}) },
    headers,
  );
}

const failure = (code: BrokerFailure['code'], message: string, hint: string): BrokerFailure => ({ code, message, hint });

/** The body of a POST as JSON (undefined when empty). */
async function readJson(req: IncomingMessage, maxBytes: number): Promise<{ ok: true; value: unknown } | { ok: false; status: number; failure: BrokerFailure }> {
  const body = await readLimitedBody(req, maxBytes);
  if (!body.ok) {
    return body.reason === 'too_large'
      ? { ok: false, status: 413, failure: failure('INVALID_ARGUMENT', 'request body too large', `Send at most ${maxBytes} bytes.`) }
      : { ok: false, status: 400, failure: failure('INVALID_ARGUMENT', 'request body incomplete', 'Send the whole JSON body.') };
  }
  if (body.text.trim() === '') return { ok: true, value: undefined };
  try {
    return { ok: true, value: JSON.parse(body.text) as unknown };
  } catch {
    return { ok: false, status: 400, failure: failure('INVALID_ARGUMENT', 'the body is not JSON', 'Send the arguments as a JSON object with Content-Type: application/json.') };
  }
}

/** The refusal code of a BLOCKED receipt (terminal_send_task, project_dispatch). */
function blockedReceiptCode(result: unknown): ErrorCode | undefined {
  const r = result as { receipt?: unknown; error_code?: unknown } | null | undefined;
  return r?.receipt === 'BLOCKED' && typeof r.error_code === 'string' && isErrorCode(r.error_code) ? r.error_code : undefined;
}

export function apiRoute<A>(deps: ApiDeps<A>): { guard: 'mcp'; methods: Record<string, (req: IncomingMessage, res: ServerResponse, caller: A | undefined) => Promise<void>> } {
  const handle = async (req: IncomingMessage, res: ServerResponse, caller: A | undefined): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://api.invalid');
    const match = matchApiRoute(req.method ?? 'GET', url.pathname.slice(API_PREFIX.length));
    if (match.kind === 'none') return sendFailure(res, failure('NOT_FOUND', 'no such API route', `GET ${API_PREFIX}/openapi.json lists every route.`));
    if (match.kind === 'wrong-method') {
      return sendJson(res, 405, { code: 'INVALID_ARGUMENT', message: `method not allowed; use ${match.allow.join(' or ')}`, hint: `GET ${API_PREFIX}/openapi.json lists every route and its method.` }, { Allow: match.allow.join(', ') });
    }
    const { op } = match;
    const catalogue = await deps.catalogueFor(caller!);
    const tool = catalogue.tools.find((t) => t.name === op.tool.name) ?? catalogue.unlisted.find((t) => t.name === op.tool.name);
    if (tool === undefined) {
      const refusal = catalogue.hidden.get(op.tool.name) ?? failure('FORBIDDEN', `${op.tool.name} is not served to this caller`, 'Ask the operator to enable its toolset.');
      return sendFailure(res, refuseUnservedTool(op.tool.name, refusal, deps.observer).failure);
    }
    let body: unknown;
    if (op.http.method === 'POST') {
      const read = await readJson(req, deps.maxBodyBytes);
      if (!read.ok) return sendJson(res, read.status, { code: read.failure.code, message: read.failure.message, hint: read.failure.hint });
      body = read.value;
    }
    const args = requestArguments(op, match.params, url.searchParams, body);
    if (!args.ok) return sendFailure(res, args.failure);
    // The client going away cancels the call, as an MCP cancellation does.
    const cancelled = new AbortController();
    const onClose = () => {
      if (!res.writableFinished) cancelled.abort();
    };
    res.once('close', onClose);
    let outcome: ToolCallOutcome;
    try {
      outcome = await callServedTool(tool, args.args, { broker: deps.brokerFor(caller!), timeoutMs: deps.timeoutMs, cancelled: cancelled.signal, observer: deps.observer });
    } finally {
      res.off('close', onClose);
    }
    if (!outcome.ok) return sendFailure(res, outcome.failure);
    const blocked = blockedReceiptCode(outcome.result);
    // A task refused at delivery is a BLOCKED receipt, not an MCP error (the model reads
    // the receipt); a script reads the status, so it gets the status of the refusal.
    if (blocked) return sendJson(res, ERROR_SPECS[blocked].http, { code: blocked, ...(outcome.result as object) });
    sendJson(res, 200, outcome.result ?? {});
  };
  return { guard: 'mcp', methods: Object.fromEntries(METHODS.map((m) => [m, handle])) };
}
