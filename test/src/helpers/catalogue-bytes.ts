/**
 * tools/list as a real MCP SDK client receives it, for every catalogue the config can
 * produce: each combination of the optional toolsets (core is always in), with a token that
 * may type and with a read-only one. Used by the budget test and `npm run bench`.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { createBrokerClient } from '@terminal-mcp/broker-client';
import { GATEWAY_INPUT_SCOPE, GATEWAY_READ_SCOPE, GATEWAY_TOOLSETS, type GatewayToolset } from '@terminal-mcp/contract';
import { createGatewayMcpServer, createToolMetrics, gatewayCatalogue, type GatewayCatalogue } from '@terminal-mcp/gateway';
import { createObserverMcpServer } from '@terminal-mcp/observer';

export type ListedTools = Awaited<ReturnType<Client['listTools']>>['tools'];

/** What a client receives: the serialized tools/list result and the instructions. */
export async function catalogueOf(server: McpServer): Promise<{ bytes: number; serialized: string; instructions: number; tools: ListedTools }> {
  const client = new Client({ name: 'catalogue-budget', version: '0.0.0' });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await Promise.all([server.connect(a), client.connect(b)]);
  try {
    const listed = await client.listTools();
    const serialized = JSON.stringify(listed);
    return { bytes: Buffer.byteLength(serialized), serialized, instructions: Buffer.byteLength(client.getInstructions() ?? ''), tools: listed.tools };
  } finally {
    await client.close();
    await server.close();
  }
}

/** Nothing listens on these sockets: listing tools never calls the broker. */
export const gatewayServerFor = (catalogue?: GatewayCatalogue) =>
  createGatewayMcpServer({ broker: createBrokerClient({ role: 'gateway', socketPath: '/nonexistent/gateway.sock' }), metrics: createToolMetrics(), ...(catalogue ? { catalogue } : {}) });
export const observerServer = () =>
  createObserverMcpServer({ broker: createBrokerClient({ role: 'observer', socketPath: '/nonexistent/observer.sock' }), caller: { username: 'budget', clientId: 'tmcp_c_budget' } });

export interface CombinationBytes {
  toolsets: GatewayToolset[];
  /** A caller without scopes (stdio, static token) or a token with the input scope. */
  bytes: number;
  tools: ListedTools;
  /** A token with terminal:read only. */
  readOnlyBytes: number;
  readOnlyTools: ListedTools;
}

export const OPTIONAL_TOOLSETS = GATEWAY_TOOLSETS.filter((s) => s !== 'core');

/** Every toolset combination's tools/list bytes, smallest first. */
export async function measureToolsetCombinations(): Promise<CombinationBytes[]> {
  const out: CombinationBytes[] = [];
  for (let mask = 0; mask < 1 << OPTIONAL_TOOLSETS.length; mask++) {
    const toolsets: GatewayToolset[] = ['core', ...OPTIONAL_TOOLSETS.filter((_, i) => mask & (1 << i))];
    const full = await catalogueOf(gatewayServerFor(gatewayCatalogue({ toolsets: new Set(toolsets), scopes: [GATEWAY_READ_SCOPE, GATEWAY_INPUT_SCOPE] })));
    const readOnly = await catalogueOf(gatewayServerFor(gatewayCatalogue({ toolsets: new Set(toolsets), scopes: [GATEWAY_READ_SCOPE] })));
    out.push({ toolsets, bytes: full.bytes, tools: full.tools, readOnlyBytes: readOnly.bytes, readOnlyTools: readOnly.tools });
  }
  return out.sort((a, b) => a.bytes - b.bytes);
}
