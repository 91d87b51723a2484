// A tail's pane text travels once to a client that shows no MCP Apps views (text only), and with the view's fields to one that declared the ui extension (issue 48).
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBrokerProcess, type BrokerProcess } from './helpers/broker-process.js';
import { repoPath } from './helpers/repo.js';
import { startTmuxServer, type TmuxTestServer } from './helpers/tmux-server.js';
import { waitFor } from './helpers/wait-for.js';
import { APPS_HOST_OPTIONS } from './helpers/apps-host.js';

const STDIO_BIN = repoPath('services/gateway/dist/bin/stdio.js');
const SESSION = 'agent-once';
const MARK = 'tail-once-line';

let tmux: TmuxTestServer;
let broker: BrokerProcess;
const clients: Client[] = [];

async function connect(name: string, capabilities: Record<string, unknown>): Promise<Client> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(broker.env)) if (v !== undefined) env[k] = v;
  const client = new Client({ name, version: '1' }, { capabilities });
  clients.push(client);
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [STDIO_BIN], env, stderr: 'ignore' }));
  return client;
}

const tail = (client: Client) => client.callTool({ name: 'terminal_tail', arguments: { session: SESSION, lines: 50 } }) as Promise<CallToolResult>;
const textOf = (r: CallToolResult) => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
const occurrences = (haystack: string, needle: string) => haystack.split(needle).length - 1;

beforeAll(async () => {
  tmux = await startTmuxServer();
  await tmux.newSession(SESSION, `bash --norc --noprofile -c 'for i in $(seq 1 40); do echo "${MARK} $i"; done; exec sleep 3600'`);
  await waitFor('the session printed its lines', async () => (await tmux.tmux(['capture-pane', '-p', '-t', `=${SESSION}:`])).includes(`${MARK} 40`));
  broker = await startBrokerProcess({ tmuxSocket: tmux.socketName, config: { allowed_session_patterns: ['agent-*'], log_level: 'warn' } });
});

afterAll(async () => {
  for (const c of clients) await c.close();
  await broker?.stop();
  await tmux?.kill();
});

describe('terminal_tail answer', () => {
  it('to a client without MCP Apps: the text block only, each pane line once in the whole answer', async () => {
    const r = await tail(await connect('plain-client', {}));
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent).toBeUndefined();
    const whole = JSON.stringify(r);
    expect(occurrences(whole, `${MARK} 17\\n`)).toBe(1);
    expect(textOf(r)).toContain(`${MARK} 40`);
  });

  it('to a host that declared the MCP Apps ui extension: the fields the view reads as well', async () => {
    const r = await tail(await connect('apps-host', APPS_HOST_OPTIONS.capabilities));
    expect(r.isError).toBeFalsy();
    const s = r.structuredContent as { session?: string; line_count?: number; text?: string } | undefined;
    expect(s?.session).toBe(SESSION);
    expect(typeof s?.line_count).toBe('number');
    expect(s?.text).toContain(`${MARK} 40`);
    expect(textOf(r)).toContain(`${MARK} 40`);
  });
});
