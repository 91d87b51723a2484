// Measures list-shaped answers as a real MCP SDK client receives them (text plus structuredContent) with 50 and 200 tmux sessions.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createGatewayLogger, startGatewayHttp, type RunningGatewayHttp } from '@terminal-mcp/gateway';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBrokerProcess, type BrokerProcess } from './helpers/broker-process.js';
import { startTmuxServer, type TmuxTestServer } from './helpers/tmux-server.js';

const WORDS = ['refactor', 'login-bug', 'docs', 'tests', 'deploy', 'review', 'perf', 'api'];
const bytesOf = (r: CallToolResult) => Buffer.byteLength(JSON.stringify({ content: r.content, structuredContent: r.structuredContent }));

describe('list answer bytes', { timeout: 300_000 }, () => {
  let tmux: TmuxTestServer;
  let broker: BrokerProcess;
  let gw: RunningGatewayHttp;
  let client: Client;
  beforeAll(async () => {
    tmux = await startTmuxServer();
    broker = await startBrokerProcess({ tmuxSocket: tmux.socketName, config: { log_level: 'warn', allowed_session_patterns: ['agent-*'] }, readyTimeoutMs: 90_000 });
    gw = await startGatewayHttp({ port: 0, env: broker.env, log: createGatewayLogger('silent') });
    client = new Client({ name: 'answer-bytes', version: '0.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(gw.mcpUrl)));
  }, 300_000);
  afterAll(async () => {
    await client?.close();
    await gw?.close();
    await broker?.stop();
    await tmux?.kill();
  });
  it.each([50, 200])('%i sessions', async (n) => {
    const have = ((await client.callTool({ name: 'terminal_list_sessions', arguments: {} })) as CallToolResult).structuredContent as { sessions: unknown[] };
    for (let i = have.sessions.length; i < n; i++) await tmux.newSession(`agent-${String(i).padStart(3, '0')}-${WORDS[i % WORDS.length]}`, 'sleep 3600', { width: 80, height: 24 });
    const r = (await client.callTool({ name: 'terminal_list_sessions', arguments: {} })) as CallToolResult;
    const text = (r.content[0] as { text: string }).text;
    console.log(`list ${n}: total ${bytesOf(r)} text ${Buffer.byteLength(text)} structured ${Buffer.byteLength(JSON.stringify(r.structuredContent))}`);
    console.log(text.split('\n').slice(0, 3).join('\n'));
    const b = (await client.callTool({ name: 'terminal_batch_inspect', arguments: {} })) as CallToolResult;
    console.log(`batch ${n}: total ${bytesOf(b)}`);
    expect(r.isError).toBeFalsy();
  });
});
