// Guards docs/tools.md's word on where each session tool runs, derived from a real broker: every tool that takes a session is called with `node:session` for a configured node that is down, and a tool the broker routes to that node (it answers NODE_UNAVAILABLE) is never documented as refusing node sessions, while one refused as this host's only is documented so.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createBrokerClient } from '@terminal-mcp/broker-client';
import { createGatewayMcpServer, createToolMetrics, ERROR_META_KEY, GATEWAY_TOOLS, TOOLSET_TOOLS, toolsetOf } from '@terminal-mcp/gateway';
import { exampleArguments } from '@terminal-mcp/mcp-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBrokerProcess, type BrokerProcess } from './helpers/broker-process.js';
import { freePort } from './helpers/ports.js';
import { repoPath } from './helpers/repo.js';
import { startTmuxServer, type TmuxTestServer } from './helpers/tmux-server.js';

const NODE = 'far';
let dir: string;
let tmux: TmuxTestServer;
let broker: BrokerProcess;
let client: Client;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tmcp-docs-nodes-'));
  const knownHosts = join(dir, 'known_hosts');
  writeFileSync(knownHosts, '');
  // Nothing listens on this port: the node is configured and down.
  const port = await freePort();
  tmux = await startTmuxServer();
  broker = await startBrokerProcess({
    tmuxSocket: tmux.socketName,
    config: {
      log_level: 'warn',
      permissions: { terminal_read: true, terminal_input: true, session_lifecycle: true },
      allowed_session_patterns: ['agent-*'],
      nodes: [{ name: NODE, ssh: `nobody@127.0.0.1:${port}`, known_hosts: knownHosts, allowed_session_patterns: ['agent-*'] }],
    },
  });
  const server = createGatewayMcpServer({ broker: createBrokerClient({ role: 'gateway', socketPath: join(broker.socketDir, 'gateway.sock') }), metrics: createToolMetrics() });
  client = new Client({ name: 'docs-nodes', version: '0.0.0' });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await Promise.all([server.connect(a), client.connect(b)]);
}, 120_000);

afterAll(async () => {
  await client?.close();
  await broker?.stop();
  await tmux?.kill();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const TOOLS = readFileSync(repoPath('docs/tools.md'), 'utf8');
/** A `## name` section of docs/tools.md, up to the next heading. */
const sectionOf = (heading: string) => {
  const start = TOOLS.indexOf(`\n${heading}\n`);
  expect(start, heading).toBeGreaterThanOrEqual(0);
  return TOOLS.slice(start + 1).split(/\n## |\n# /)[0]!;
};
const REFUSES_NODES = /`node:session`\s+is\s+refused|this\s+host's\s+sessions\s+only|sessions\s+of\s+this\s+host\s+only/i;

describe('where each session tool runs', () => {
  /** Each tool that takes a session, as the broker answers it for a down node's session:
   * NODE_UNAVAILABLE means it went to the node; a refusal naming nodes means this host only. */
  let where: Map<string, 'node' | 'host only' | 'neither'>;

  beforeAll(async () => {
    where = new Map();
    for (const t of GATEWAY_TOOLS.filter((tool) => 'session' in tool.inputShape)) {
      const r = (await client.callTool({ name: t.name, arguments: { ...exampleArguments(t), session: `${NODE}:agent-1` } }, undefined, { timeout: 60_000 })) as CallToolResult;
      const code = (r._meta?.[ERROR_META_KEY] as { error_code?: string } | undefined)?.error_code;
      const text = r.content.map((c) => (c.type === 'text' ? c.text : '')).join(' ');
      where.set(t.name, code === 'NODE_UNAVAILABLE' ? 'node' : r.isError === true && /\bnode\b/i.test(text) ? 'host only' : 'neither');
    }
    console.log([...where].map(([t, w]) => `${t}: ${w}`).join('\n'));
  }, 300_000);

  it('the read, input and lifecycle tools reach the node (the probe itself works)', () => {
    for (const t of ['terminal_tail', 'terminal_send_text', 'terminal_run', 'terminal_session_close']) expect(where.get(t), t).toBe('node');
  });

  it('no tool that runs on the node is documented as refusing node sessions', () => {
    const runs = [...where].filter(([, w]) => w === 'node').map(([t]) => t);
    expect(runs.filter((t) => REFUSES_NODES.test(sectionOf(`## ${t}`)))).toEqual([]);
  });

  it('"Sessions on other hosts" names every tool that runs there, and each one that does not as this host\'s only', () => {
    const section = sectionOf('## Sessions on other hosts (`node:session`)');
    const named = new Set([...section.matchAll(/`([a-z0-9]+_[a-z0-9_]+)`/g)].map((m) => m[1]!));
    expect([...where].filter(([t, w]) => w === 'node' && !named.has(t)).map(([t]) => t)).toEqual([]);
    for (const [t, w] of where) {
      if (w !== 'host only') continue;
      expect(section, `${t} is named as this host's only`).toMatch(new RegExp(`\`${t}\`[^.]*(this\\s+host's\\s+sessions\\s+only|sessions\\s+of\\s+this\\s+host\\s+only)`));
      expect(sectionOf(`## ${t}`), `${t}'s own section says so`).toMatch(REFUSES_NODES);
    }
  });
});

describe('the toolsets and other hosts', () => {
  it('says which toolset the node tools are in, not that they are still to come', () => {
    const nodeTools = GATEWAY_TOOLS.filter((t) => t.name.includes('node')).map((t) => t.name);
    expect(nodeTools.length).toBeGreaterThan(0);
    const toolsets = TOOLS.slice(TOOLS.indexOf('\n# Toolsets'), TOOLS.indexOf('\n# ', TOOLS.indexOf('\n# Toolsets') + 3));
    expect(toolsets).not.toMatch(/when they land/);
    for (const t of nodeTools) {
      expect(TOOLSET_TOOLS[toolsetOf(t)!]).toContain(t);
      expect(toolsets, t).toMatch(new RegExp(`\`${t}\` is in \`${toolsetOf(t)}\``));
    }
  });
});
