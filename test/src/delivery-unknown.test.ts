// Exact answers for input that may have been typed: an input tool whose broker call is cut after it was sent (the broker killed with SIGKILL mid-run) answers DELIVERY_UNKNOWN, never BROKER_UNAVAILABLE; a call that never reached a broker still answers BROKER_UNAVAILABLE; a read tool cut the same way keeps its old answer.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createGatewayLogger, ERROR_META_KEY, startGatewayHttp, type RunningGatewayHttp } from '@terminal-mcp/gateway';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBrokerProcess, type BrokerProcess } from './helpers/broker-process.js';
import { startTmuxServer, type TmuxTestServer } from './helpers/tmux-server.js';
import { waitFor } from './helpers/wait-for.js';

const TOKEN = 'delivery-unknown-token';
const CONFIG = {
  permissions: { terminal_read: true, terminal_input: true },
  allowed_session_patterns: ['agent-*'],
  input_policy: { allowed_session_patterns: ['agent-*'] },
  log_level: 'warn',
};
const BASH = "env PS1='$ ' HISTFILE=/dev/null bash --norc --noprofile -i";

const errorCodeOf = (r: CallToolResult) => (r._meta?.[ERROR_META_KEY] as { error_code?: string } | undefined)?.error_code;

describe('answers for input cut mid-call', () => {
  let tmux: TmuxTestServer;
  let broker: BrokerProcess;
  let gw: RunningGatewayHttp;
  let client: Client;

  beforeAll(async () => {
    tmux = await startTmuxServer();
    broker = await startBrokerProcess({ tmuxSocket: tmux.socketName, config: CONFIG });
    gw = await startGatewayHttp({ port: 0, env: broker.env, log: createGatewayLogger('silent'), token: TOKEN });
    client = new Client({ name: 'delivery-unknown', version: '0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(gw.mcpUrl), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }));
    await tmux.newSession('agent-cut', BASH, { width: 100, height: 30 });
    await waitFor('prompt', async () => (await tmux.tmux(['capture-pane', '-p', '-t', '=agent-cut:'])).includes('$'), 20_000, 50);
  }, 60_000);
  afterAll(async () => {
    await client?.close();
    await gw?.close();
    await broker?.stop();
    await tmux?.kill();
  });

  it('answers DELIVERY_UNKNOWN for a run whose broker died mid-call, and BROKER_UNAVAILABLE once nothing listens', async () => {
    const call = (name: string, args: Record<string, unknown>) => client.callTool({ name, arguments: args }, undefined, { timeout: 120_000 }) as Promise<CallToolResult>;
    const pending = call('terminal_run', { session: 'agent-cut', command: 'echo started; sleep 30', timeout_s: 20 });
    await waitFor('the command runs', async () => (await tmux.tmux(['capture-pane', '-p', '-t', '=agent-cut:'])).includes('\nstarted'), 30_000, 50);
    broker.kill('SIGKILL');
    await broker.exited();
    const cut = await pending;
    expect(cut.isError).toBe(true);
    expect(errorCodeOf(cut)).toBe('DELIVERY_UNKNOWN');
    // Nothing listens now: never sent, so "unavailable" is the exact answer.
    const refused = await call('terminal_send_text', { session: 'agent-cut', text: 'x' });
    expect(errorCodeOf(refused)).toBe('BROKER_UNAVAILABLE');
    const read = await call('terminal_list_sessions', {});
    expect(errorCodeOf(read)).toBe('BROKER_UNAVAILABLE');
  }, 120_000);
});
