/**
 * /mcp: the protected resource. Every request needs `Authorization: Bearer <token>` with
 * an access token the broker accepts FOR THIS RESOURCE (`<public url>/mcp`, the token's
 * audience) — checked on every request, so a revocation or expiry takes effect at once.
 * Otherwise 401 with `WWW-Authenticate: Bearer resource_metadata="..."`, which is how an
 * MCP client discovers where to get a token (RFC 9728, MCP authorization spec).
 *
 * Then STATELESS Streamable HTTP: a fresh McpServer and transport per request, closed
 * when the response closes (hosted clients do not reliably echo Mcp-Session-Id).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { BrokerClient } from '@terminal-mcp/broker-client';
import { OAUTH_LIMITS, OBSERVER_SCOPE } from '@terminal-mcp/contract';
import { jsonRpcError, readLimitedBody, sendJson } from '@terminal-mcp/http-guard';
import type { Logger } from 'pino';
import { createObserverMcpServer, type ObserverCaller } from '../server.js';
import { callBroker } from './broker-call.js';
import type { ObserverUrls } from './urls.js';

export interface McpEndpointDeps {
  broker: BrokerClient<'observer'>;
  urls: ObserverUrls;
  log: Logger;
  maxBodyBytes: number;
  brokerTimeoutMs: number;
}

const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

export function bearerChallenge(urls: ObserverUrls, error?: { error: string; description: string }): string {
  const base = `Bearer resource_metadata="${urls.resourceMetadata}", scope="${OBSERVER_SCOPE}"`;
  return error ? `${base}, error="${error.error}", error_description="${error.description}"` : base;
}

export type Authenticated = { ok: true; caller: ObserverCaller } | { ok: false };

/** Answers 401/503 itself when the request may not proceed. */
export async function authenticate(req: IncomingMessage, res: ServerResponse, deps: McpEndpointDeps): Promise<Authenticated> {
  const header = req.headers.authorization;
  const m = header ? BEARER.exec(header) : null;
  if (!m || m[1]!.length > OAUTH_LIMITS.token) {
    const presented = header !== undefined;
    if (presented) deps.log.warn({ event: 'security.mcp_bad_authorization' }, 'malformed Authorization header on /mcp');
    sendJson(res, 401, jsonRpcError('Unauthorized: a bearer access token is required'), {
      'WWW-Authenticate': bearerChallenge(deps.urls, presented ? { error: 'invalid_request', description: 'malformed Authorization header' } : undefined),
    });
    return { ok: false };
  }
  const verified = await callBroker(
    (signal) => deps.broker.oauth.verifyAccessToken.query({ token: m[1]!, resource: deps.urls.resource }, { signal }),
    deps.brokerTimeoutMs,
  );
  if (verified.ok) {
    if (!verified.value.scopes.includes(OBSERVER_SCOPE)) {
      sendJson(res, 403, jsonRpcError('Forbidden: the access token lacks the observer:read scope'), {
        'WWW-Authenticate': bearerChallenge(deps.urls, { error: 'insufficient_scope', description: 'observer:read is required' }),
      });
      return { ok: false };
    }
    return { ok: true, caller: { username: verified.value.user.username, clientId: verified.value.clientId } };
  }
  const code = verified.failure.code;
  if (code === 'UNAUTHENTICATED' || code === 'INVALID_ARGUMENT') {
    deps.log.warn({ event: 'security.mcp_token_refused' }, 'access token refused on /mcp');
    sendJson(res, 401, jsonRpcError('Unauthorized: the access token is invalid, expired, revoked or for another resource'), {
      'WWW-Authenticate': bearerChallenge(deps.urls, { error: 'invalid_token', description: 'invalid, expired or revoked token, or another audience' }),
    });
  } else {
    deps.log.error({ event: 'mcp.token_check_failed', error_code: code, correlation_id: verified.failure.correlationId }, 'could not check an access token');
    sendJson(res, 503, jsonRpcError('Service unavailable: cannot check the access token right now'), { 'Retry-After': '5' });
  }
  return { ok: false };
}

export async function handleMcpPost(req: IncomingMessage, res: ServerResponse, caller: ObserverCaller, deps: McpEndpointDeps): Promise<void> {
  const body = await readLimitedBody(req, deps.maxBodyBytes);
  if (!body.ok) {
    if (body.reason === 'too_large') {
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
    sendJson(res, 400, jsonRpcError('Parse error: invalid JSON', -32700));
    return;
  }

  const server = createObserverMcpServer({ broker: deps.broker, caller, log: deps.log, brokerTimeoutMs: deps.brokerTimeoutMs });
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  res.on('close', () => {
    transport.close().catch(() => undefined);
    server.close().catch(() => undefined);
  });
  try {
    await server.connect(transport);
    await transport.handleRequest(req, res, parsed);
  } catch (err) {
    deps.log.error({ event: 'mcp.transport_error', err }, 'MCP request failed');
    sendJson(res, 500, jsonRpcError('Internal server error', -32603));
  }
}
