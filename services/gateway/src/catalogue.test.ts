// Guards the toolsets: every gateway tool is in exactly one toolset, a caller is listed only the tools of its toolsets that its scopes allow, and a tool it is not listed is refused by name (a frozen catalogue cannot reach it) with the reason, never run.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { BrokerClient } from '@terminal-mcp/broker-client';
import { DEFAULT_GATEWAY_TOOLSETS_CONFIG, GATEWAY_INPUT_SCOPE, GATEWAY_READ_SCOPE, GATEWAY_TOOLSETS, gatewayToolsetsConfigSchema, toolsetsForCaller, type GatewayToolset } from '@terminal-mcp/contract';
import { ERROR_META_KEY } from '@terminal-mcp/mcp-kit';
import { describe, expect, it } from 'vitest';
import { createCatalogues, gatewayCatalogue } from './catalogue.js';
import { INPUT_TOOL_NAMES } from './http/oauth-profile.js';
import { createToolMetrics } from './metrics.js';
import { createGatewayMcpServer } from './server.js';
import { GATEWAY_TOOLS } from './tools/index.js';
import { TOOLSET_TOOLS, toolsetOf } from './tools/toolsets.js';

const ALL = new Set<GatewayToolset>(GATEWAY_TOOLSETS);
/** A stand-in at the broker socket (a process boundary) that records each procedure a tool
 * calls and answers nothing: the real broker's refusal is tested end to end in
 * test/src/gateway-oauth.test.ts. */
function recordingBroker(calls: string[]): BrokerClient<'gateway'> {
  const at = (path: string[]): unknown =>
    new Proxy(() => undefined, {
      get: (_target, key) => at([...path, String(key)]),
      apply: () => {
        calls.push(path.slice(0, -1).join('.'));
        return Promise.reject(new Error('recorded, not answered'));
      },
    });
  return at([]) as BrokerClient<'gateway'>;
}

describe('the toolset table', () => {
  it('puts every gateway tool in exactly one toolset, and names no other tool', () => {
    const listed = Object.values(TOOLSET_TOOLS).flat();
    expect([...listed].sort()).toEqual(GATEWAY_TOOLS.map((t) => t.name).sort());
    expect(new Set(listed).size).toBe(listed.length);
    for (const t of GATEWAY_TOOLS) expect(toolsetOf(t.name), t.name).toBeDefined();
  });
});

describe('toolsetsForCaller', () => {
  const config = gatewayToolsetsConfigSchema.parse({ default: ['input'], stdio: ['notes', 'supervisor'], oauth: [], clients: { tmcp_c_ops: ['supervisor'] } });
  it.each([
    [{ kind: 'stdio' as const }, ['core', 'notes', 'supervisor']],
    [{ kind: 'http' as const }, ['core', 'input']],
    [{ kind: 'oauth' as const, clientId: 'tmcp_c_other' }, ['core']],
    [{ kind: 'oauth' as const, clientId: 'tmcp_c_ops' }, ['core', 'supervisor']],
  ])('%o is served %o (the most specific entry, core always)', (caller, expected) => {
    expect([...toolsetsForCaller(config, caller)].sort()).toEqual([...expected].sort());
  });

  it('serves core, input and transcripts by default', () => {
    expect([...toolsetsForCaller(DEFAULT_GATEWAY_TOOLSETS_CONFIG, { kind: 'oauth', clientId: 'x' })].sort()).toEqual(['core', 'input', 'transcripts']);
  });

  it('refuses a toolset name it does not know (a typo must not silently list less)', () => {
    expect(gatewayToolsetsConfigSchema.safeParse({ default: ['core', 'supervisr'] }).success).toBe(false);
    expect(gatewayToolsetsConfigSchema.safeParse({ clients: { 'bad id!': ['core'] } }).success).toBe(false);
  });
});

describe('gatewayCatalogue', () => {
  it('lists the tools of the chosen toolsets in table order and hides the rest', () => {
    const c = gatewayCatalogue({ toolsets: new Set<GatewayToolset>(['core', 'notes']) });
    expect(c.tools.map((t) => t.name).sort()).toEqual([...TOOLSET_TOOLS.core, ...TOOLSET_TOOLS.notes].sort());
    expect(c.tools.length + c.hidden.size).toBe(GATEWAY_TOOLS.length);
    expect(c.hidden.get('terminal_send_text')).toMatchObject({ code: 'FORBIDDEN', message: expect.stringContaining('input toolset') });
  });

  it('does not list a read-only token the tools that type, and only those; they stay callable so the broker refuses and audits them', () => {
    const c = gatewayCatalogue({ toolsets: ALL, scopes: [GATEWAY_READ_SCOPE] });
    expect(c.tools.map((t) => t.name).sort()).toEqual(GATEWAY_TOOLS.map((t) => t.name).filter((n) => !INPUT_TOOL_NAMES.has(n)).sort());
    expect(c.unlisted.map((t) => t.name).sort()).toEqual([...INPUT_TOOL_NAMES].sort());
    expect(c.hidden.size).toBe(0);
    expect(gatewayCatalogue({ toolsets: ALL, scopes: [GATEWAY_READ_SCOPE, GATEWAY_INPUT_SCOPE] }).tools).toHaveLength(GATEWAY_TOOLS.length);
  });

  it('is built once per distinct choice by its owner, so each tool keeps its cached listing', () => {
    const catalogues = createCatalogues();
    const a = catalogues({ toolsets: new Set<GatewayToolset>(['core', 'input']), scopes: ['terminal:input', 'terminal:read'] });
    const b = catalogues({ toolsets: new Set<GatewayToolset>(['input', 'core']), scopes: ['terminal:read', 'terminal:input'] });
    expect(b).toBe(a);
    // Another owner (another gateway in the process) builds its own.
    expect(createCatalogues()({ toolsets: new Set<GatewayToolset>(['core', 'input']), scopes: ['terminal:read', 'terminal:input'] })).not.toBe(a);
    expect(a.tools[0]).toBe(GATEWAY_TOOLS.find((t) => t.name === a.tools[0]!.name));
  });
});

describe('a server built from a narrowed catalogue (real SDK client)', () => {
  it('lists only its tools, refuses a tool of another toolset by name without calling the broker, and passes an unlisted input tool to the broker to decide', async () => {
    const catalogue = gatewayCatalogue({ toolsets: new Set<GatewayToolset>(['core', 'input']), scopes: [GATEWAY_READ_SCOPE] });
    const calls: string[] = [];
    const server = createGatewayMcpServer({ broker: recordingBroker(calls), metrics: createToolMetrics(), catalogue });
    const client = new Client({ name: 'catalogue-test', version: '0.0.0' });
    const [a, b] = InMemoryTransport.createLinkedPair();
    await Promise.all([server.connect(a), client.connect(b)]);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(catalogue.tools.map((t) => t.name));
      expect(tools.map((t) => t.name)).not.toContain('terminal_send_text');
      expect(tools.map((t) => t.name)).not.toContain('note_create');
      const code = (r: CallToolResult) => (r._meta?.[ERROR_META_KEY] as { error_code?: string } | undefined)?.error_code;
      const byScope = (await client.callTool({ name: 'terminal_send_text', arguments: { session: 'x', text: 'rm -rf /' } })) as CallToolResult;
      expect(byScope.isError).toBe(true);
      expect(calls).toEqual(['input.sendText']); // the broker decides (and audits) the attempt
      const byToolset = (await client.callTool({ name: 'note_create', arguments: { title: 't' } })) as CallToolResult;
      expect(code(byToolset)).toBe('FORBIDDEN');
      expect((byToolset.content[0] as { text: string }).text).toMatch(/notes toolset.*gateway\.toolsets/);
      const unknown = (await client.callTool({ name: 'no_such_tool', arguments: {} })) as CallToolResult;
      expect(code(unknown)).toBe('INVALID_ARGUMENT');
      expect(calls).toEqual(['input.sendText']);
    } finally {
      await client.close();
      await server.close();
    }
  });
});
