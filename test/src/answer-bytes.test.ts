// Guards compact list answers (issue 31): terminal_list_sessions of 50 varied sessions fits 6 KB as a real MCP SDK client receives it (text plus structuredContent), says each shared value once, and still names every session with the right access; the 200-session figure is printed.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createGatewayLogger, expandRows, startGatewayHttp, type RunningGatewayHttp } from '@terminal-mcp/gateway';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBrokerProcess, type BrokerProcess } from './helpers/broker-process.js';
import { startTmuxServer, type TmuxTestServer } from './helpers/tmux-server.js';
import { addVariedSessions, VARIED_SESSIONS_CONFIG, variedSessionHasTwoWindows, variedSessionName } from './helpers/varied-sessions.js';

const LIST_BUDGET_50 = 6_000;
const nameOf = variedSessionName;
const bytesOf = (r: CallToolResult) => Buffer.byteLength(JSON.stringify({ content: r.content, structuredContent: r.structuredContent }));
const textOf = (r: CallToolResult) => (r.content[0] as { text: string }).text;

describe('compact list answers', { timeout: 600_000 }, () => {
  let tmux: TmuxTestServer;
  let broker: BrokerProcess;
  let gw: RunningGatewayHttp;
  let client: Client;
  let made = 0;
  const grow = async (n: number) => {
    await addVariedSessions(tmux, made, n);
    made = Math.max(made, n);
  };
  const list = async () => (await client.callTool({ name: 'terminal_list_sessions', arguments: {} })) as CallToolResult;

  beforeAll(async () => {
    tmux = await startTmuxServer();
    const config = { log_level: 'warn', ...VARIED_SESSIONS_CONFIG };
    broker = await startBrokerProcess({ tmuxSocket: tmux.socketName, config, readyTimeoutMs: 90_000 });
    gw = await startGatewayHttp({ port: 0, env: broker.env, log: createGatewayLogger('silent'), allowOpen: true });
    client = new Client({ name: 'answer-bytes', version: '0.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(gw.mcpUrl)));
  }, 600_000);
  afterAll(async () => {
    await client?.close();
    await gw?.close();
    await broker?.stop();
    await tmux?.kill();
  });

  it('50 sessions fit 6 KB, every session named once with its access, shared values said once', async () => {
    await grow(50);
    const r = await list();
    expect(r.isError).toBeFalsy();
    const bytes = bytesOf(r);
    console.log(`terminal_list_sessions, 50 sessions: ${bytes} bytes (text ${Buffer.byteLength(textOf(r))}, structuredContent ${Buffer.byteLength(JSON.stringify(r.structuredContent))})`);
    console.log(textOf(r).split('\n').slice(0, 5).join('\n'));
    expect(bytes).toBeLessThanOrEqual(LIST_BUDGET_50);
    const rows = expandRows(r.structuredContent);
    expect(rows.map((s) => s.name).sort()).toEqual(Array.from({ length: 50 }, (_, i) => nameOf(i)).sort());
    for (const s of rows) {
      const kind = String(s.name).split('-')[0];
      expect(s.access, String(s.name)).toBe(kind === 'claude' ? 'ri' : kind === 'build' || kind === 'notes' ? '-' : 'r');
      expect(s.windows, String(s.name)).toBe(variedSessionHasTwoWindows(Number(String(s.name).split('-').pop())) ? 2 : 1);
    }
    // Nobody is attached and nothing is in copy mode: said once, not fifty times.
    expect((r.structuredContent as { same?: Record<string, unknown> }).same).toMatchObject({ attached: 0, copy_mode: false });
    for (let i = 0; i < 50; i++) expect(textOf(r)).toContain(nameOf(i));
  });

  it('200 sessions: the figure', async () => {
    await grow(200);
    const r = await list();
    expect(expandRows(r.structuredContent)).toHaveLength(200);
    console.log(`terminal_list_sessions, 200 sessions: ${bytesOf(r)} bytes (text ${Buffer.byteLength(textOf(r))})`);
    const b = (await client.callTool({ name: 'terminal_batch_inspect', arguments: {} })) as CallToolResult;
    console.log(`terminal_batch_inspect, default (first 10 readable, 10 lines): ${bytesOf(b)} bytes`);
    expect(b.isError).toBeFalsy();
  });
});
