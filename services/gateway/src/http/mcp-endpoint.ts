/**
 * POST /mcp in STATELESS mode: a fresh McpServer and transport per request, closed when
 * the response closes. Hosted clients (ChatGPT) do not reliably echo Mcp-Session-Id, so
 * no request depends on an earlier one. Answers are plain JSON (no SSE stream): every
 * tool answers once, and a JSON body is simpler for proxies and tunnels.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { withBrokerCredential } from '@terminal-mcp/broker-client';
import { jsonRpcError, readLimitedBody, sendJson } from '@terminal-mcp/http-guard';
import type { Logger } from 'pino';
import type { ToolMetrics } from '../metrics.js';
import { createGatewayMcpServer, type GatewayServerDeps } from '../server.js';

export interface McpEndpointDeps {
  serverDeps: GatewayServerDeps;
  metrics: ToolMetrics;
  log: Logger;
  maxBodyBytes: number;
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

  const server = createGatewayMcpServer(deps.serverDeps);
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
