/**
 * POST /mcp in STATELESS mode: a fresh McpServer and transport per request, closed when
 * the response closes. Hosted clients (ChatGPT) do not reliably echo Mcp-Session-Id, so
 * no request depends on an earlier one. Answers are plain JSON (no SSE stream): every
 * tool answers once, and a JSON body is simpler for proxies and tunnels. The one thing
 * carried across requests is a hint: the client's name, by the Mcp-Session-Id the
 * initialize answer hands out (client-names.ts), for the audit actor.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { withBrokerCredential } from '@terminal-mcp/broker-client';
import { jsonRpcError, readLimitedBody, sendJson } from '@terminal-mcp/http-guard';
import type { Logger } from 'pino';
import type { ToolMetrics } from '../metrics.js';
import { initializeClientName, SESSION_ID_HEADER, type ClientNames } from './client-names.js';
import { createGatewayMcpServer, type GatewayServerDeps } from '../server.js';

export interface McpEndpointDeps {
  serverDeps: GatewayServerDeps;
  metrics: ToolMetrics;
  log: Logger;
  maxBodyBytes: number;
  clientNames: ClientNames;
}

/** `credential`: the OAuth access token the request came with; every broker call made
 * while serving it names the token, and the broker takes actor and scopes from it. */
export async function handleMcpPost(req: IncomingMessage, res: ServerResponse, deps: McpEndpointDeps, credential?: string): Promise<void> {
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

  const initializing = initializeClientName(parsed);
  let clientName = deps.clientNames.lookup(req.headers[SESSION_ID_HEADER]);
  if (initializing !== undefined) {
    // Merged into the transport's writeHead; the client sends it back on later requests.
    res.setHeader('Mcp-Session-Id', deps.clientNames.remember(initializing));
    clientName = initializing;
  }
  const server = createGatewayMcpServer({ ...deps.serverDeps, ...(clientName !== undefined ? { clientName } : {}) });
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  res.on('close', () => {
    transport.close().catch(() => undefined);
    server.close().catch(() => undefined);
  });
  try {
    await withBrokerCredential(credential, async () => {
      await server.connect(transport);
      await transport.handleRequest(req, res, parsed);
    });
  } catch (err) {
    deps.log.error({ event: 'mcp.transport_error', err }, 'MCP request failed');
    sendJson(res, 500, jsonRpcError('Internal server error', -32603));
  }
}
