// Guards docs/tools.md against the code (every registered tool has a section, annotations and argument aliases as documented) and the catalogue budgets of issue 16, measured on tools/list as a real MCP SDK client receives it.
import { readFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { createBrokerClient } from '@terminal-mcp/broker-client';
import { createGatewayMcpServer, createToolMetrics, GATEWAY_TOOLS } from '@terminal-mcp/gateway';
import { createObserverMcpServer, OBSERVER_TOOLS } from '@terminal-mcp/observer';
import { describe, expect, it } from 'vitest';
import { repoPath } from './helpers/repo.js';

const doc = readFileSync(repoPath('docs/tools.md'), 'utf8');
const sectionsUnder = (title: string): string[] => {
  const start = doc.indexOf(`\n# ${title}`);
  expect(start).toBeGreaterThanOrEqual(0);
  const next = doc.indexOf('\n# ', start + 3);
  const part = doc.slice(start, next === -1 ? undefined : next);
  return [...part.matchAll(/^## ([a-z0-9_]+)$/gm)].map((m) => m[1]!);
};
const READ = sectionsUnder('Read tools (gateway and observer)');
const GATEWAY_ONLY = [...doc.matchAll(/^# (Gateway: .+)$/gm)].flatMap((m) => sectionsUnder(m[1]!));
const OBSERVER_ONLY = sectionsUnder('Observer tools (read-only, for claude.ai)');

describe('docs/tools.md', () => {
  it('documents exactly the gateway tools', () => {
    expect(GATEWAY_TOOLS.map((t) => t.name).sort()).toEqual([...READ, ...GATEWAY_ONLY].sort());
  });

  it('documents exactly the observer tools, eighteen, all read-only', () => {
    expect(OBSERVER_TOOLS.map((t) => t.name).sort()).toEqual([...READ, ...OBSERVER_ONLY].sort());
    expect(OBSERVER_TOOLS).toHaveLength(18);
    for (const t of OBSERVER_TOOLS) expect(t.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
  });

  it('states each gateway tool annotation as registered', () => {
    for (const t of GATEWAY_TOOLS) {
      const section = doc.slice(doc.indexOf(`\n## ${t.name}\n`) + 1).split(/\n## |\n# /)[0]!;
      const documented = /readOnlyHint: (true|false)/.exec(section)?.[1];
      if (documented !== undefined) expect(`${t.name}: ${String(t.annotations.readOnlyHint)}`).toBe(`${t.name}: ${documented}`);
      if (READ.includes(t.name)) expect(t.annotations.readOnlyHint).toBe(true);
    }
    expect(GATEWAY_TOOLS.find((t) => t.name === 'terminal_send_keys')?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
  });
});

/** What a client receives: the serialized tools/list result and the instructions. */
async function catalogueOf(server: McpServer): Promise<{ bytes: number; serialized: string; instructions: number; tools: Awaited<ReturnType<Client['listTools']>>['tools'] }> {
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

// Nothing listens on these sockets: listing tools never calls the broker.
const gateway = () => createGatewayMcpServer({ broker: createBrokerClient({ role: 'gateway', socketPath: '/nonexistent/gateway.sock' }), metrics: createToolMetrics() });
const observer = () =>
  createObserverMcpServer({ broker: createBrokerClient({ role: 'observer', socketPath: '/nonexistent/observer.sock' }), caller: { username: 'budget', clientId: 'tmcp_c_budget' } });

/** Issue 16 set the budgets on the terminal and project-source tools it measured (gateway
 * 25 KB, observer 12 KB). A fixed total for every tool would forbid any new capability, so
 * each later family (notes, projects, ...) gets its own allowance per tool on top, and the
 * core keeps its budget: a family that grows must stay as terse as the core. */
const CORE_NAMES = /^(terminal_|source_)/;
/** The transcripts family (issue 16's cursors and export, built after the measurement)
 * pays its own way like every later family. */
const TRANSCRIPT_FAMILY = new Set(['terminal_read_since', 'terminal_export_transcript']);
const isCore = (name: string) => CORE_NAMES.test(name) && !TRANSCRIPT_FAMILY.has(name);
const PER_FAMILY_TOOL_BYTES = 700;
const bytesOf = (tools: readonly unknown[]) => Buffer.byteLength(JSON.stringify(tools));

describe('catalogue budgets (issue 16)', () => {
  it.each([
    ['gateway', gateway, GATEWAY_TOOLS.length, 25_000],
    ['observer', observer, OBSERVER_TOOLS.length, 12_000],
  ] as const)('%s: tools/list with every tool, and its instructions, fit the budget without zod noise', async (name, make, count, budget) => {
    const c = await catalogueOf(make());
    const core = c.tools.filter((t) => isCore(t.name));
    const families = c.tools.filter((t) => !isCore(t.name));
    console.log(`${name}: tools/list ${c.bytes} bytes for ${c.tools.length} tools (core ${bytesOf(core)} bytes for ${core.length}; other families ${bytesOf(families)} for ${families.length}); instructions ${c.instructions} bytes`);
    expect(c.tools).toHaveLength(count);
    expect(bytesOf(core)).toBeLessThanOrEqual(budget);
    expect(c.bytes).toBeLessThanOrEqual(budget + PER_FAMILY_TOOL_BYTES * families.length);
    expect(c.instructions).toBeLessThanOrEqual(2_400);
    expect(c.serialized).not.toContain('$schema');
    expect(c.serialized).not.toContain(String(Number.MAX_SAFE_INTEGER));
    for (const t of c.tools) expect(t.inputSchema, t.name).toMatchObject({ type: 'object', additionalProperties: false });
  });

  it('publishes output schemas exactly where docs/tools.md says a client acts on the fields', async () => {
    const documented = /\*\*Output schemas only where a client acts on the fields itself:\*\*([^*]+?)\. Every other tool/s.exec(doc)?.[1] ?? '';
    const named = [...documented.matchAll(/`(terminal_[a-z_]+|source_[a-z_]+|supervisor2?_[a-z_]+)`/g)].map((m) => m[1]!).sort();
    const gw = await catalogueOf(gateway());
    const obs = await catalogueOf(observer());
    const withSchema = [...gw.tools, ...obs.tools].filter((t) => t.outputSchema).map((t) => t.name).sort();
    expect(withSchema).toEqual(named);
    // Never closed: a field added later must not break a client that cached the schema.
    for (const t of gw.tools) if (t.outputSchema) expect(JSON.stringify(t.outputSchema), t.name).not.toContain('additionalProperties');
  });
});

describe('argument aliases (docs/tools.md table)', () => {
  it('documents exactly the aliases and retired arguments the tools declare', () => {
    const start = doc.indexOf('| tool | original argument | here |');
    expect(start).toBeGreaterThanOrEqual(0);
    const table = doc.slice(start).split('\n');
    const rows = table
      .slice(2, table.findIndex((l) => !l.startsWith('|')))
      .map((l) => {
        const [tool, original, here] = l.split('|').slice(1, 4).map((c) => c.trim());
        const alias = /^alias of `([a-z_]+)`/.exec(here!)?.[1];
        return `${tool!.replace(/`/g, '')} ${original!.replace(/`/g, '')} ${alias ?? 'refused'}`;
      });
    const tools = new Map([...GATEWAY_TOOLS, ...OBSERVER_TOOLS].map((t) => [t.name, t]));
    const declared = [...tools.values()].flatMap((t) => [
      ...Object.entries(t.aliases).map(([from, to]) => `${t.name} ${from} ${to}`),
      ...Object.keys(t.retired).map((from) => `${t.name} ${from} refused`),
    ]);
    expect(rows.sort()).toEqual(declared.sort());
  });
});
