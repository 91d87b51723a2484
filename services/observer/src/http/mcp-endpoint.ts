/**
 * /mcp: the protected resource. Every request needs a bearer access token the broker
 * accepts for this resource with the observer:read scope (authenticateBearer from
 * @terminal-mcp/oauth-http answers 401 with the resource metadata URL otherwise).
 *
 * Then STATELESS Streamable HTTP: a fresh McpServer and transport per request, closed
 * when the response closes (hosted clients do not reliably echo Mcp-Session-Id), over
 * the node:http JSON transport the gateway uses too (@terminal-mcp/mcp-kit).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { BrokerClient } from '@terminal-mcp/broker-client';
import { COMMON_RESPONSE_HEADERS, jsonRpcError, readLimitedBody, sendJson } from '@terminal-mcp/http-guard';
import { JsonHttpServerTransport } from '@terminal-mcp/mcp-kit';
import { authenticateBearer, type OAuthResourceProfile, type OAuthUrls } from '@terminal-mcp/oauth-http';
import type { Logger } from 'pino';
import { createObserverMcpServer, type ObserverCaller } from '../server.js';

export interface McpEndpointDeps {
  broker: BrokerClient<'observer'>;
  urls: OAuthUrls;
  profile: OAuthResourceProfile;
  log: Logger;
  maxBodyBytes: number;
  brokerTimeoutMs: number;
}

export type Authenticated = { ok: true; caller: ObserverCaller } | { ok: false };

/** Answers 401/403/503 itself when the request may not proceed. */
export async function authenticate(req: IncomingMessage, res: ServerResponse, deps: McpEndpointDeps): Promise<Authenticated> {
  const auth = await authenticateBearer(req, res, { ...deps, broker: deps.broker.oauth });
  if (!auth.ok) return { ok: false };
  return { ok: true, caller: { username: auth.verified.user.username, clientId: auth.verified.clientId } };
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
  const transport = new JsonHttpServerTransport({ responseHeaders: COMMON_RESPONSE_HEADERS });
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
