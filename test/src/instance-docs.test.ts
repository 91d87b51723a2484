// Guards the self-describing instance end to end (real broker, SDK clients over stdio and HTTP): /api.md and /skills.md and the MCP resources and learn-api prompt are generated from the served tools, name every tool of tools/list, give examples that pass each tool's own argument schema, and sit behind the same Host/Origin/token gate as /mcp.
import { request as httpRequest } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { GATEWAY_TOOLSETS } from '@terminal-mcp/contract';
import { createGatewayLogger, GATEWAY_TOOLS, startGatewayHttp, type RunningGatewayHttp } from '@terminal-mcp/gateway';
import { API_DOC_URI, LEARN_PROMPT, SKILL_DOC_URI } from '@terminal-mcp/mcp-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBrokerProcess, type BrokerProcess } from './helpers/broker-process.js';
import { repoPath } from './helpers/repo.js';
import { startTmuxServer, type TmuxTestServer } from './helpers/tmux-server.js';

const TOKEN = 'docs-token-7c1e0b9a44';
let tmux: TmuxTestServer;
let broker: BrokerProcess;
let gw: RunningGatewayHttp;
const clients: Client[] = [];

function get(port: number, path: string, headers: Record<string, string> = {}): Promise<{ status: number; type: string | undefined; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, headers: { host: `127.0.0.1:${port}`, ...headers } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, type: res.headers['content-type'], body }));
    });
    req.on('error', reject);
    req.end();
  });
}

async function httpClient(): Promise<Client> {
  const client = new Client({ name: 'docs-http-e2e', version: '0.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(gw.mcpUrl), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }));
  clients.push(client);
  return client;
}

async function stdioClient(): Promise<Client> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(broker.env)) if (v !== undefined && k !== 'TMUX' && k !== 'TMUX_PANE') env[k] = v;
  const client = new Client({ name: 'docs-stdio-e2e', version: '0.0.0' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [repoPath('services/gateway/dist/bin/stdio.js')], env: { ...env, TERMINAL_MCP_LOG_LEVEL: 'warn' }, stderr: 'pipe' }));
  clients.push(client);
  return client;
}

/** `## tool_name` headings of api.md. */
const documentedTools = (api: string) => [...api.matchAll(/^## ([a-z][a-z0-9_]+)$/gm)].map((m) => m[1]);

beforeAll(async () => {
  tmux = await startTmuxServer();
  // Every toolset, so the generated docs cover every tool (the default catalogue is smaller).
  broker = await startBrokerProcess({ tmuxSocket: tmux.socketName, config: { allowed_session_patterns: ['agent-*'], log_level: 'warn', gateway: { toolsets: { default: [...GATEWAY_TOOLSETS] } } } });
  gw = await startGatewayHttp({ port: 0, env: broker.env, log: createGatewayLogger('silent'), token: TOKEN });
});

afterAll(async () => {
  await Promise.allSettled(clients.map((c) => c.close()));
  await gw?.close();
  await broker?.stop();
  await tmux?.kill();
});

describe('self-describing instance', () => {
  it('serves /api.md naming exactly the tools of tools/list, and /skills.md as an Agent Skill', async () => {
    const { tools } = await (await httpClient()).listTools();
    const api = await get(gw.port, '/api.md', { authorization: `Bearer ${TOKEN}` });
    expect(api.status).toBe(200);
    expect(api.type).toMatch(/^text\/markdown/);
    expect(documentedTools(api.body).sort()).toEqual(tools.map((t) => t.name).sort());
    expect(api.body).toContain(gw.mcpUrl);
    for (const t of tools) {
      const props = Object.keys((t.inputSchema.properties ?? {}) as object);
      const section = api.body.split(`## ${t.name}\n`)[1]!.split('\n## ')[0]!;
      for (const p of props) expect(section, `${t.name}.${p}`).toContain(`| \`${p}\` |`);
      expect(section).toContain(`{"name":"${t.name}"`);
    }
    const skill = await get(gw.port, '/skills.md', { authorization: `Bearer ${TOKEN}` });
    expect(skill.status).toBe(200);
    expect(skill.body).toMatch(/^---\nname: terminal-mcp\ndescription: .+\n---\n/);
    expect(skill.body).toContain('terminal_send_task');
  });

  it('gives examples that every tool\'s own argument schema accepts, in api.md and in the skill', async () => {
    const api = (await get(gw.port, '/api.md', { authorization: `Bearer ${TOKEN}` })).body;
    const skill = (await get(gw.port, '/skills.md', { authorization: `Bearer ${TOKEN}` })).body;
    const byName = new Map(GATEWAY_TOOLS.map((t) => [t.name, t]));
    const examples = [...api.matchAll(/^(\{"name":.*\})$/gm)].map((m) => JSON.parse(m[1]!) as { name: string; arguments: unknown });
    expect(examples).toHaveLength(GATEWAY_TOOLS.length);
    // The skill's inline calls: `tool_name {json}`.
    for (const m of skill.matchAll(/`(terminal_\w+) (\{[^`]*\})`/g)) examples.push({ name: m[1]!, arguments: JSON.parse(m[2]!) });
    expect(examples.length).toBeGreaterThan(GATEWAY_TOOLS.length + 3);
    for (const e of examples) {
      const tool = byName.get(e.name);
      expect(tool, e.name).toBeDefined();
      const parsed = tool!.inputSchema.safeParse(e.arguments);
      expect(parsed.success, `${e.name} ${JSON.stringify(e.arguments)}: ${parsed.error?.message ?? ''}`).toBe(true);
    }
  });

  it('puts /api.md and /skills.md behind the same Host, Origin and token gate as /mcp', async () => {
    expect((await get(gw.port, '/api.md')).status).toBe(401);
    expect((await get(gw.port, '/skills.md', { authorization: 'Bearer wrong' })).status).toBe(401);
    expect((await get(gw.port, '/api.md', { authorization: `Bearer ${TOKEN}`, host: 'evil.example:80' })).status).toBe(403);
    expect((await get(gw.port, '/skills.md', { authorization: `Bearer ${TOKEN}`, origin: 'https://evil.example' })).status).toBe(403);
  });

  for (const [label, connect] of [
    ['stdio', stdioClient],
    ['HTTP', httpClient],
  ] as const) {
    it(`lists and reads both resources and the learn-api prompt over ${label}`, async () => {
      const client = await connect();
      const { tools } = await client.listTools();
      const { resources } = await client.listResources();
      // Both documents, and the MCP Apps live view that terminal_tail/terminal_status declare.
      expect(resources.map((r) => r.uri).sort()).toEqual([API_DOC_URI, SKILL_DOC_URI, 'ui://terminal-mcp/live-terminal.html'].sort());
      const api = await client.readResource({ uri: API_DOC_URI });
      const apiText = (api.contents[0] as { text: string }).text;
      expect(documentedTools(apiText).sort()).toEqual(tools.map((t) => t.name).sort());
      const skill = await client.readResource({ uri: SKILL_DOC_URI });
      expect((skill.contents[0] as { text: string }).text).toMatch(/^---\nname: terminal-mcp/);
      await expect(client.readResource({ uri: 'terminal-mcp://docs/nope.md' })).rejects.toThrow(/no resource/);
      // The live view declares a strict CSP (no origin of any kind), listed and read.
      const strict = { connectDomains: [], resourceDomains: [], frameDomains: [], baseUriDomains: [] };
      expect(resources.find((r) => r.uri === 'ui://terminal-mcp/live-terminal.html')?._meta).toMatchObject({ ui: { csp: strict } });
      const view = await client.readResource({ uri: 'ui://terminal-mcp/live-terminal.html' });
      expect(view.contents[0]?._meta).toMatchObject({ ui: { csp: strict } });

      const { prompts } = await client.listPrompts();
      expect(prompts.map((p) => p.name)).toEqual([LEARN_PROMPT]);
      const prompt = await client.getPrompt({ name: LEARN_PROMPT });
      expect(prompt.messages[0]!.content).toMatchObject({ type: 'text', text: expect.stringContaining(SKILL_DOC_URI) });
      expect(prompt.messages.map((m) => (m.content.type === 'resource' ? m.content.resource.uri : null)).filter(Boolean)).toEqual([SKILL_DOC_URI, API_DOC_URI]);
    });
  }
});
