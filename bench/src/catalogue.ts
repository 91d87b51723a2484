/**
 * Catalogue sizes (issue 31): tools/list bytes and tool counts as a real MCP SDK client
 * receives them (in memory: listing never calls the broker), for the gateway with every
 * tool, its default catalogue, each toolset combination the config can produce (with a
 * token that may type and a read-only one) and the observer. With BENCH_BEFORE naming the
 * root of another checkout, built (`npx tsc -b`), that build's gateway and observer are
 * measured in the same run, with ratios.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { DEFAULT_GATEWAY_TOOLSETS } from '@terminal-mcp/contract';
import { catalogueOf, gatewayServerFor, measureToolsetCombinations, observerServer } from '@terminal-mcp/test';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

export interface CatalogueFigure {
  bytes: number;
  tools: number;
}
export interface CatalogueBench {
  gateway: CatalogueFigure;
  gatewayDefault: CatalogueFigure & { readOnly: CatalogueFigure };
  observer: CatalogueFigure;
  combinations: { toolsets: string[]; bytes: number; readOnlyBytes: number; tools: number }[];
  before?: { gateway: CatalogueFigure; observer: CatalogueFigure };
}

const figure = async (server: McpServer): Promise<CatalogueFigure> => {
  const c = await catalogueOf(server);
  return { bytes: c.bytes, tools: c.tools.length };
};

/** Another build's servers, loaded from its dist (its own contract, SDK and schemas). */
async function beforeServers(root: string): Promise<{ gateway: () => McpServer; observer: () => McpServer }> {
  const load = (path: string) => import(pathToFileURL(join(root, path)).href) as Promise<Record<string, (...args: unknown[]) => unknown>>;
  const [gw, ob, bc] = await Promise.all([load('services/gateway/dist/index.js'), load('services/observer/dist/index.js'), load('shared/broker-client/dist/index.js')]);
  return {
    gateway: () => gw.createGatewayMcpServer!({ broker: bc.createBrokerClient!({ role: 'gateway', socketPath: '/nonexistent/gateway.sock' }), metrics: gw.createToolMetrics!() }) as McpServer,
    observer: () => ob.createObserverMcpServer!({ broker: bc.createBrokerClient!({ role: 'observer', socketPath: '/nonexistent/observer.sock' }), caller: { username: 'budget', clientId: 'tmcp_c_budget' } }) as McpServer,
  };
}

export async function benchCatalogue(beforeRoot?: string): Promise<CatalogueBench> {
  const combinations = await measureToolsetCombinations();
  const isDefault = (toolsets: readonly string[]) => toolsets.length === DEFAULT_GATEWAY_TOOLSETS.length && DEFAULT_GATEWAY_TOOLSETS.every((s) => toolsets.includes(s));
  const byDefault = combinations.find((c) => isDefault(c.toolsets))!;
  const out: CatalogueBench = {
    gateway: await figure(gatewayServerFor()),
    gatewayDefault: { bytes: byDefault.bytes, tools: byDefault.tools.length, readOnly: { bytes: byDefault.readOnlyBytes, tools: byDefault.readOnlyTools.length } },
    observer: await figure(observerServer()),
    combinations: combinations.map((c) => ({ toolsets: c.toolsets, bytes: c.bytes, readOnlyBytes: c.readOnlyBytes, tools: c.tools.length })),
  };
  if (beforeRoot) {
    const before = await beforeServers(beforeRoot);
    out.before = { gateway: await figure(before.gateway()), observer: await figure(before.observer()) };
  }
  return out;
}
