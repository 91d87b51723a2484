/**
 * POST /mcp. A client that initializes gets a live session (mcp-sessions.ts): one
 * McpServer and stateful transport kept for it, reached by the Mcp-Session-Id the
 * initialize answer carries, for the same principal only. Every other request (no id,
 * an unknown or expired id: hosted clients such as ChatGPT do not reliably echo it) is
 * served STATELESSLY as before: a fresh McpServer and transport, closed when the response
 * closes, so no request depends on an earlier one. Answers are plain JSON (no SSE
 * stream): every tool answers once, and a JSON body is simpler for proxies and tunnels.
 * The transport is our own node:http one (@terminal-mcp/mcp-kit JsonHttpServerTransport):
 * the SDK's converts every request to web Request/Response objects, which was a third of
 * the HTTP round trip.
 * Every broker call made while serving a request names how it was authenticated (the
 * OAuth access token, or the gateway's principal: its static token or none), so the
 * broker derives the caller's identity from that, never from `clientInfo.name`.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { withBrokerCredential, withBrokerPrincipal } from '@terminal-mcp/broker-client';
import { COMMON_RESPONSE_HEADERS, jsonRpcError, readLimitedBody, sendJson } from '@terminal-mcp/http-guard';
import { JsonHttpServerTransport } from '@terminal-mcp/mcp-kit';
import type { Logger } from 'pino';
import type { ToolMetrics } from '../metrics.js';
import type { LiveSession, McpSessionTable } from './mcp-sessions.js';
import { createGatewayMcpServer, type GatewayServerDeps } from '../server.js';

export interface McpHttpSession extends LiveSession {
  readonly server: McpServer;
  readonly transport: JsonHttpServerTransport;
}

export interface McpEndpointDeps {
  serverDeps: GatewayServerDeps;
  metrics: ToolMetrics;
  log: Logger;
  maxBodyBytes: number;
  sessions: McpSessionTable<McpHttpSession>;
}

/** The Mcp-Session-Id request header (lower case, as Node gives headers). */
export const SESSION_ID_HEADER = 'mcp-session-id';

/** Who this request acts as (mcp-sessions.ts principalKey) and what the broker is told:
 * with OAuth the access token (the broker verifies it and takes identity and scopes from
 * it), else how the gateway let the request in (`token` or `anonymous`). */
export interface McpCaller {
  principal: string;
  credential?: string;
  brokerPrincipal?: 'token' | 'anonymous';
}

function isInitialize(body: unknown): boolean {
  return (Array.isArray(body) ? body : [body]).some((m) => typeof m === 'object' && m !== null && (m as { method?: unknown }).method === 'initialize');
}

const headerValue = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);

export async function handleMcpPost(req: IncomingMessage, res: ServerResponse, deps: McpEndpointDeps, caller: McpCaller): Promise<void> {
  const body = await readLimitedBody(req, deps.maxBodyBytes);
  if (!body.ok) {
    if (body.reason === 'too_large') {
      deps.metrics.observeRejection('body_too_large');
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
    deps.metrics.observeRejection('bad_json');
    sendJson(res, 400, jsonRpcError('Parse error: invalid JSON', -32700));
    return;
  }

  const serve = async (transport: JsonHttpServerTransport, connect?: McpServer) => {
    try {
      await withBrokerPrincipal(caller.credential === undefined ? caller.brokerPrincipal : undefined, () =>
        withBrokerCredential(caller.credential, async () => {
          if (connect) await connect.connect(transport);
          await transport.handleRequest(req, res, parsed);
        }),
      );
    } catch (err) {
      deps.log.error({ event: 'mcp.transport_error', err }, 'MCP request failed');
      if (!res.headersSent) sendJson(res, 500, jsonRpcError('Internal server error', -32603));
    }
  };

  if (isInitialize(parsed)) return startSession(parsed, deps, caller, serve);

  const sessionId = headerValue(req.headers[SESSION_ID_HEADER]);
  const found = deps.sessions.lookup(sessionId, caller.principal);
  if (found.kind === 'foreign') return refuseForeignSession(res, deps);
  if (found.kind === 'live') return serve(found.session.transport);

  // Stateless: a fresh server for this request only.
  const server = createGatewayMcpServer(deps.serverDeps);
  const transport = new JsonHttpServerTransport({ responseHeaders: COMMON_RESPONSE_HEADERS });
  res.on('close', () => {
    transport.close().catch(() => undefined);
    server.close().catch(() => undefined);
  });
  return serve(transport, server);
}

/** DELETE /mcp: the client ends its live session (the spec's explicit termination; the
 * SDK client's terminateSession). Only the principal that created the session may end it:
 * another one is refused as on POST (403), or a leaked id would let anyone cut a client
 * off. An unknown or expired id is 404: there is nothing to end. */
export async function handleMcpDelete(req: IncomingMessage, res: ServerResponse, deps: McpEndpointDeps, caller: McpCaller): Promise<void> {
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

function refuseForeignSession(res: ServerResponse, deps: McpEndpointDeps): void {
  deps.metrics.observeRejection('session');
  deps.log.warn({ event: 'security.mcp_foreign_session' }, 'Mcp-Session-Id of another principal refused');
  sendJson(res, 403, jsonRpcError('Forbidden: this Mcp-Session-Id belongs to another credential; send initialize to start a session of your own'));
}

/** initialize: a new live session, kept once the transport hands out its id. */
async function startSession(
  parsed: unknown,
  deps: McpEndpointDeps,
  caller: McpCaller,
  serve: (transport: JsonHttpServerTransport, connect: McpServer) => Promise<void>,
): Promise<void> {
  const server = createGatewayMcpServer(deps.serverDeps);
  let kept = false;
  const session: McpHttpSession = {
    principal: caller.principal,
    server,
    transport: new JsonHttpServerTransport({
      responseHeaders: COMMON_RESPONSE_HEADERS,
      sessionIdGenerator: () => randomBytes(16).toString('base64url'),
      onsessioninitialized: (id) => {
        kept = true;
        deps.sessions.add(id, session);
      },
    }),
    close() {
      session.transport.close().catch(() => undefined);
      server.close().catch(() => undefined);
    },
  };
  session.transport.onclose = () => {
    if (session.transport.sessionId !== undefined) deps.sessions.remove(session.transport.sessionId, session);
  };
  await serve(session.transport, server);
  // A refused initialize (bad protocol version, malformed) keeps nothing.
  if (!kept) session.close();
}
