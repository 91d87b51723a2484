/**
 * POST and DELETE /mcp for both MCP front ends. With live sessions on (the gateway), a
 * client that initializes gets a session (mcp-sessions.ts): one McpServer and stateful
 * transport kept for it, reached by the Mcp-Session-Id the initialize answer carries, for
 * the same principal only. Every other request (no id, an unknown or expired id: hosted
 * clients such as ChatGPT do not reliably echo it), and every request when live sessions
 * are off (the observer), is served STATELESSLY: a fresh McpServer and transport, closed
 * when the response closes, so no request depends on an earlier one. Answers are plain
 * JSON (no SSE stream) through our node:http transport (json-http-transport.ts).
 * The request has been authenticated before it gets here (mcp-http-service.ts); the
 * service builds each server for its caller (`createServer(caller, latest)`: a live
 * session's later requests update `latest`, e.g. a refreshed OAuth credential).
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { COMMON_RESPONSE_HEADERS, jsonRpcError, readLimitedBody, sendJson } from '@terminal-mcp/http-guard';
import type { Logger } from 'pino';
import { JsonHttpServerTransport } from './json-http-transport.js';
import type { LiveSession, McpSessionTable } from './mcp-sessions.js';

/** Who a request acts as; `principal` binds live sessions (only its creator may use one). */
export interface McpCaller {
  readonly principal: string;
}

/** Why a request was refused, as the services count them (the gateway's metrics label;
 * a closed set, so a caller cannot grow the label space). */
export type RefusalReason = 'host' | 'origin' | 'token' | 'body_too_large' | 'bad_json' | 'session';

export interface McpLiveSession extends LiveSession {
  readonly server: McpServer;
  readonly transport: JsonHttpServerTransport;
  /** A later request of this session came from `caller` (its principal already matched). */
  presented(caller: McpCaller): void;
}

export interface McpEndpointDeps<A extends McpCaller> {
  log: Logger;
  maxBodyBytes: number;
  /** Undefined: stateless (every request gets a fresh server). */
  sessions: McpSessionTable<McpLiveSession> | undefined;
  /** `latest`: the caller as its most recent request presented itself (a live session's
   * later requests come from the same principal, perhaps with a refreshed credential). */
  createServer(caller: A, latest: () => A): McpServer | Promise<McpServer>;
  observeRejection?: (reason: RefusalReason) => void;
}

/** The Mcp-Session-Id request header (lower case, as Node gives headers). */
export const SESSION_ID_HEADER = 'mcp-session-id';

function isInitialize(body: unknown): boolean {
  return (Array.isArray(body) ? body : [body]).some((m) => typeof m === 'object' && m !== null && (m as { method?: unknown }).method === 'initialize');
}

const headerValue = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);

export async function handleMcpPost<A extends McpCaller>(req: IncomingMessage, res: ServerResponse, deps: McpEndpointDeps<A>, caller: A): Promise<void> {
  const body = await readLimitedBody(req, deps.maxBodyBytes);
  if (!body.ok) {
    if (body.reason === 'too_large') {
      deps.observeRejection?.('body_too_large');
      sendJson(res, 413, jsonRpcError(`Payload Too Large: request body must not exceed ${deps.maxBodyBytes} bytes`), { Connection: 'close' });
    } else {
      res.destroy();
    }
    return;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.text);
  } catch {
    deps.observeRejection?.('bad_json');
    sendJson(res, 400, jsonRpcError('Parse error: invalid JSON', -32700));
    return;
  }

  const serve = async (transport: JsonHttpServerTransport, connect?: McpServer) => {
    try {
      if (connect) await connect.connect(transport);
      await transport.handleRequest(req, res, parsed);
    } catch (err) {
      deps.log.error({ event: 'mcp.transport_error', err }, 'MCP request failed');
      if (!res.headersSent) sendJson(res, 500, jsonRpcError('Internal server error', -32603));
    }
  };

  const sessions = deps.sessions;
  if (sessions) {
    if (isInitialize(parsed)) return startSession(sessions, deps, caller, serve);
    const found = sessions.lookup(headerValue(req.headers[SESSION_ID_HEADER]), caller.principal);
    if (found.kind === 'foreign') return refuseForeignSession(res, deps);
    if (found.kind === 'live') {
      found.session.presented(caller);
      return serve(found.session.transport);
    }
  }

  // Stateless: a fresh server for this request only.
  const server = await deps.createServer(caller, () => caller);
  const transport = new JsonHttpServerTransport({ responseHeaders: COMMON_RESPONSE_HEADERS });
  res.on('close', () => {
    transport.close().catch(() => undefined);
    server.close().catch(() => undefined);
  });
  return serve(transport, server);
}

/** DELETE /mcp (live sessions only): the client ends its session (the spec's explicit
 * termination; the SDK client's terminateSession). Only the principal that created the
 * session may end it: another one is refused as on POST (403), or a leaked id would let
 * anyone cut a client off. An unknown or expired id is 404: there is nothing to end. */
export async function handleMcpDelete<A extends McpCaller>(
  req: IncomingMessage,
  res: ServerResponse,
  deps: McpEndpointDeps<A> & { sessions: McpSessionTable<McpLiveSession> },
  caller: A,
): Promise<void> {
  const sessionId = headerValue(req.headers[SESSION_ID_HEADER]);
  if (sessionId === undefined) {
    sendJson(res, 400, jsonRpcError('Bad Request: Mcp-Session-Id header is required'));
    return;
  }
  const found = deps.sessions.lookup(sessionId, caller.principal);
  if (found.kind === 'foreign') return refuseForeignSession(res, deps);
  if (found.kind === 'none') {
    sendJson(res, 404, jsonRpcError('Session not found', -32001));
    return;
  }
  // The transport checks the id and protocol version, answers, and closes itself (its
  // onclose drops the session from the table); the server goes with it.
  await found.session.transport.handleRequest(req, res);
  found.session.close();
}

function refuseForeignSession(res: ServerResponse, deps: { log: Logger; observeRejection?: (reason: RefusalReason) => void }): void {
  deps.observeRejection?.('session');
  deps.log.warn({ event: 'security.mcp_foreign_session' }, 'Mcp-Session-Id of another principal refused');
  sendJson(res, 403, jsonRpcError('Forbidden: this Mcp-Session-Id belongs to another credential; send initialize to start a session of your own'));
}

/** initialize: a new live session, kept once the transport hands out its id. */
async function startSession<A extends McpCaller>(
  sessions: McpSessionTable<McpLiveSession>,
  deps: McpEndpointDeps<A>,
  caller: A,
  serve: (transport: JsonHttpServerTransport, connect: McpServer) => Promise<void>,
): Promise<void> {
  let latest = caller;
  const server = await deps.createServer(caller, () => latest);
  let kept = false;
  const session: McpLiveSession = {
    principal: caller.principal,
    server,
    presented(next) {
      latest = next as A;
    },
    transport: new JsonHttpServerTransport({
      responseHeaders: COMMON_RESPONSE_HEADERS,
      sessionIdGenerator: () => randomBytes(16).toString('base64url'),
      onsessioninitialized: (id) => {
        kept = true;
        sessions.add(id, session);
      },
    }),
    close() {
      session.transport.close().catch(() => undefined);
      server.close().catch(() => undefined);
    },
  };
  session.transport.onclose = () => {
    if (session.transport.sessionId !== undefined) sessions.remove(session.transport.sessionId, session);
  };
  await serve(session.transport, server);
  // A refused initialize (bad protocol version, malformed) keeps nothing.
  if (!kept) session.close();
}
