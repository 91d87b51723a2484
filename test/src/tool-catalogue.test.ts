// Guards docs/tools.md against the code (every registered tool has a section, annotations and argument aliases as documented) and the catalogue budgets of issues 16 and 31 (every toolset combination), measured on tools/list as a real MCP SDK client receives it.
import { readFileSync } from 'node:fs';
import { DEFAULT_GATEWAY_TOOLSETS } from '@terminal-mcp/contract';
import { GATEWAY_TOOLS, INPUT_TOOL_NAMES, TOOLSET_TOOLS } from '@terminal-mcp/gateway';
import { OBSERVER_TOOLS } from '@terminal-mcp/observer';
import { describe, expect, it } from 'vitest';
import { catalogueOf, gatewayServerFor, measureToolsetCombinations, observerServer, OPTIONAL_TOOLSETS } from './helpers/catalogue-bytes.js';
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

const gateway = () => gatewayServerFor();
const observer = observerServer;

/** Issue 16 set the budgets on the terminal and project-source tools it measured (gateway
 * 25 KB, observer 12 KB); issue 31 made the gateway's default catalogue (what a new client
 * is served: core, input, transcripts) fit the 25 KB whole. A fixed total for every tool
 * would forbid any new capability, so each family outside the default gets an allowance per
 * tool on top: a family that grows must stay as terse as the core. */
const CORE_NAMES = /^(terminal_|source_)/;
/** The transcripts family (issue 16's cursors and export, built after the measurement)
 * pays its own way like every later family. */
const TRANSCRIPT_FAMILY = new Set(['terminal_read_since', 'terminal_export_transcript']);
const isCore = (name: string) => CORE_NAMES.test(name) && !TRANSCRIPT_FAMILY.has(name);
/** Measured 2026-12-02: the bindings family averages 775 B a tool, the default about 1,470. */
const PER_FAMILY_TOOL_BYTES = 800;
const DEFAULT_BUDGET = 25_000;
const bytesOf = (tools: readonly unknown[]) => Buffer.byteLength(JSON.stringify(tools));

describe('catalogue budgets (issues 16 and 31)', () => {
  it('observer: tools/list with every tool, and its instructions, fit the budget without zod noise', async () => {
    const c = await catalogueOf(observer());
    const core = c.tools.filter((t) => isCore(t.name));
    const families = c.tools.filter((t) => !isCore(t.name));
    console.log(`observer: tools/list ${c.bytes} bytes for ${c.tools.length} tools (core ${bytesOf(core)} bytes for ${core.length}; other families ${bytesOf(families)} for ${families.length}); instructions ${c.instructions} bytes`);
    expect(c.tools).toHaveLength(OBSERVER_TOOLS.length);
    expect(bytesOf(core)).toBeLessThanOrEqual(12_000);
    expect(c.bytes).toBeLessThanOrEqual(12_000 + PER_FAMILY_TOOL_BYTES * families.length);
    expect(c.instructions).toBeLessThanOrEqual(2_400);
    expect(c.serialized).not.toContain('$schema');
    for (const t of c.tools) expect(t.inputSchema, t.name).toMatchObject({ type: 'object', additionalProperties: false });
  });

  it('gateway with every tool: instructions fit and the schemas carry no zod noise', async () => {
    const c = await catalogueOf(gateway());
    console.log(`gateway, every tool: tools/list ${c.bytes} bytes for ${c.tools.length} tools; instructions ${c.instructions} bytes`);
    expect(c.tools).toHaveLength(GATEWAY_TOOLS.length);
    expect(c.instructions).toBeLessThanOrEqual(2_400);
    expect(c.serialized).not.toContain('$schema');
    expect(c.serialized).not.toContain(String(Number.MAX_SAFE_INTEGER));
    for (const t of c.tools) expect(t.inputSchema, t.name).toMatchObject({ type: 'object', additionalProperties: false });
  });

  it('gateway: every toolset combination the config can produce lists exactly its tools and fits; the default fits 25 KB', async () => {
    const combinations = await measureToolsetCombinations();
    expect(combinations).toHaveLength(2 ** OPTIONAL_TOOLSETS.length);
    const defaultTools = new Set(DEFAULT_GATEWAY_TOOLSETS.flatMap((s) => TOOLSET_TOOLS[s]));
    const byDefault = combinations.find((c) => c.toolsets.length === DEFAULT_GATEWAY_TOOLSETS.length && DEFAULT_GATEWAY_TOOLSETS.every((s) => c.toolsets.includes(s)))!;
    console.log(`gateway tools/list bytes per toolset combination (core always in; read-only token in parentheses):`);
    for (const c of combinations) {
      const names = c.toolsets.flatMap((s) => TOOLSET_TOOLS[s]);
      console.log(`  ${String(c.bytes).padStart(6)} (${String(c.readOnlyBytes).padStart(6)})  ${String(c.tools.length).padStart(2)} tools  ${c.toolsets.join('+')}`);
      expect(c.tools.map((t) => t.name).sort(), c.toolsets.join('+')).toEqual([...names].sort());
      expect(c.readOnlyTools.map((t) => t.name).sort()).toEqual(names.filter((n) => !INPUT_TOOL_NAMES.has(n)).sort());
      const beyondDefault = c.tools.filter((t) => !defaultTools.has(t.name)).length;
      // Each tool a combination adds to the default costs PER_FAMILY_TOOL_BYTES on average at
      // most (measured from the default as it is, which itself must fit DEFAULT_BUDGET below).
      expect(c.bytes, c.toolsets.join('+')).toBeLessThanOrEqual(Math.min(byDefault.bytes, DEFAULT_BUDGET) + PER_FAMILY_TOOL_BYTES * beyondDefault);
    }
    console.log(`default (${DEFAULT_GATEWAY_TOOLSETS.join('+')}): ${byDefault.bytes} bytes, read-only token ${byDefault.readOnlyBytes}`);
    expect(byDefault.bytes).toBeLessThanOrEqual(DEFAULT_BUDGET);
  });

  it('publishes output schemas exactly where docs/tools.md says a client acts on the fields', async () => {
    const documented = /\*\*Output schemas only where a client acts on the fields itself:\*\*([^*]+?)\. A declared output schema/s.exec(doc)?.[1] ?? '';
    expect(documented, 'the paragraph in docs/tools.md').not.toBe('');
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
