// Guards identity as a value (issue 49): one gateway process serving two OAuth callers at once, their tool calls (MCP on live sessions, and the scripts' API) interleaved, audits every read under the caller that made it, never the other one; and a live MCP session's broker calls carry the credential of its latest request (a refreshed access token), not the one it began with.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createBrokerClient } from '@terminal-mcp/broker-client';
import { GATEWAY_TOOLSETS } from '@terminal-mcp/contract';
import { createGatewayLogger, startGatewayHttp, type RunningGatewayHttp } from '@terminal-mcp/gateway';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBrokerProcess, type BrokerProcess } from './helpers/broker-process.js';
import { issueAccessToken, issueTokens } from './helpers/oauth-token.js';
import { createOperatorAccount } from './helpers/operator-account.js';
import { startTmuxServer, type TmuxTestServer } from './helpers/tmux-server.js';
import { waitFor } from './helpers/wait-for.js';

const CALLERS = [
  { user: 'ident-ada', password: 'ident ada passphrase 17', session: 'ident-a' },
  { user: 'ident-bob', password: 'ident bob passphrase 29', session: 'ident-b' },
] as const;
const ROUNDS = 12;

let root: string;
let tmux: TmuxTestServer;
let broker: BrokerProcess;
let gw: RunningGatewayHttp;
const tokens: string[] = [];
const clients: Client[] = [];

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'tmcp-ident-'));
  tmux = await startTmuxServer();
  for (const c of CALLERS) await tmux.newSession(c.session, 'sleep 600', { width: 80, height: 10 });
  broker = await startBrokerProcess({
    tmuxSocket: tmux.socketName,
    config: {
      log_level: 'warn',
      gateway: { toolsets: { default: [...GATEWAY_TOOLSETS], oauth: [...GATEWAY_TOOLSETS] } },
      permissions: { terminal_read: true },
      allowed_session_patterns: ['ident-*'],
    },
  });
  gw = await startGatewayHttp({ port: 0, env: broker.env, log: createGatewayLogger('silent'), oauth: true, registrationLimits: { perSource: 1000 } });
  for (const c of CALLERS) {
    await createOperatorAccount(broker.env, c.user, c.password);
    tokens.push(await issueAccessToken({ env: broker.env, role: 'gateway', resource: gw.mcpUrl, scope: 'terminal:read', username: c.user, password: c.password, clientName: `ident ${c.user}` }));
  }
}, 120_000);

afterAll(async () => {
  await Promise.allSettled(clients.map((c) => c.close()));
  await gw?.close();
  await broker?.stop();
  await tmux?.kill();
  if (root) rmSync(root, { recursive: true, force: true });
}, 60_000);

async function mcp(token: string): Promise<Client> {
  const client = new Client({ name: 'caller-identity', version: '0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(gw.mcpUrl), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  clients.push(client);
  return client;
}

/** The read-audit rows of terminal tails, by session (reads flush every 200 ms: wait for all). */
async function tailActors(expected: number): Promise<Map<string, string[]>> {
  const db = new Database(join(broker.stateDir, 'audit.db'), { readonly: true });
  try {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const rows = db.prepare("SELECT session_name, actor FROM read_audit WHERE session_name LIKE 'ident-%' ORDER BY id").all() as { session_name: string; actor: string }[];
      if (rows.length >= expected || Date.now() > deadline) {
        const by = new Map<string, string[]>();
        for (const r of rows) by.set(r.session_name, [...(by.get(r.session_name) ?? []), r.actor]);
        return by;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  } finally {
    db.close();
  }
}

describe('two callers through one gateway process', () => {
  it('audits each interleaved call (MCP and the API) under its own caller', async () => {
    const sessions = await Promise.all(tokens.map((t) => mcp(t)));
    const base = gw.mcpUrl.replace(/\/mcp$/, '');
    // Each caller reads only its own session; every round starts both callers' calls
    // together, so their broker calls are in flight at the same time.
    const call = (i: number) => {
      const c = CALLERS[i]!;
      return [
        sessions[i]!.callTool({ name: 'terminal_tail', arguments: { session: c.session, lines: 3 } }).then((r) => expect((r as CallToolResult).isError ?? false).toBe(false)),
        fetch(`${base}/api/v1/sessions/${c.session}/tail?lines=3`, { headers: { authorization: `Bearer ${tokens[i]}` } }).then((r) => expect(r.status).toBe(200)),
      ];
    };
    for (let round = 0; round < ROUNDS; round++) await Promise.all([...call(0), ...call(1)]);
    const by = await tailActors(CALLERS.length * ROUNDS * 2);
    const actors = CALLERS.map((c) => by.get(c.session) ?? []);
    for (const list of actors) expect(list).toHaveLength(ROUNDS * 2);
    // One actor per session, naming that caller, and the two differ.
    expect(actors.map((list) => [...new Set(list)])).toEqual([[expect.stringContaining(CALLERS[0].user)], [expect.stringContaining(CALLERS[1].user)]]);
  }, 120_000);
});

describe('a live MCP session whose access token is refreshed', () => {
  const USER = 'ident-cy';
  const PASSWORD = 'ident cy passphrase 53';
  const SESSION = 'ident-c';
  let shortTmux: TmuxTestServer;
  let shortBroker: BrokerProcess;
  let shortGw: RunningGatewayHttp;

  beforeAll(async () => {
    shortTmux = await startTmuxServer();
    await shortTmux.newSession(SESSION, 'sleep 600', { width: 80, height: 10 });
    shortBroker = await startBrokerProcess({
      tmuxSocket: shortTmux.socketName,
      config: {
        log_level: 'warn',
        gateway: { toolsets: { oauth: [...GATEWAY_TOOLSETS] }, oauth: { access_token_ttl_seconds: 1 } },
        permissions: { terminal_read: true },
        allowed_session_patterns: ['ident-*'],
      },
    });
    await createOperatorAccount(shortBroker.env, USER, PASSWORD);
    shortGw = await startGatewayHttp({ port: 0, env: shortBroker.env, log: createGatewayLogger('silent'), oauth: true, registrationLimits: { perSource: 1000 } });
  }, 120_000);

  afterAll(async () => {
    await shortGw?.close();
    await shortBroker?.stop();
    await shortTmux?.kill();
  }, 60_000);

  /** One JSON-RPC message to /mcp with this token (and session). */
  const post = async (token: string, body: Record<string, unknown>, sessionId?: string) => {
    const res = await fetch(shortGw.mcpUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token}`, ...(sessionId ? { 'mcp-session-id': sessionId } : {}) },
      body: JSON.stringify({ jsonrpc: '2.0', ...body }),
    });
    const text = await res.text();
    return { status: res.status, sessionId: res.headers.get('mcp-session-id') ?? undefined, body: text ? (JSON.parse(text) as { result?: CallToolResult }) : undefined };
  };

  it('calls the broker with the token of the latest request, not the one the session began with', async () => {
    const first = await issueTokens({ env: shortBroker.env, role: 'gateway', resource: shortGw.mcpUrl, scope: 'terminal:read', username: USER, password: PASSWORD, clientName: 'ident refresh' });
    const init = await post(first.accessToken, { id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'ident', version: '0' } } });
    expect(init.status).toBe(200);
    const id = init.sessionId!;
    expect((await post(first.accessToken, { method: 'notifications/initialized' }, id)).status).toBe(202);
    const tail = { id: 2, method: 'tools/call', params: { name: 'terminal_tail', arguments: { session: SESSION, lines: 3 } } };
    expect((await post(first.accessToken, tail, id)).body?.result?.isError ?? false).toBe(false);
    // Wait for the first access token to expire: the gateway refuses it (401).
    await waitFor('the first access token to expire', async () => (await post(first.accessToken, tail, id)).status === 401);
    const b = createBrokerClient({ role: 'gateway', env: shortBroker.env });
    const refreshed = await b.oauth.exchangeToken.mutate({ grantType: 'refresh_token', clientId: first.clientId, refreshToken: first.refreshToken, resource: shortGw.mcpUrl });
    if (!refreshed.ok) throw new Error(refreshed.description);
    // Same user, client and scopes: the same principal, so the same live session serves it,
    // and its broker calls carry the fresh token (the first one the broker would refuse).
    const again = await post(refreshed.tokens.accessToken, { ...tail, id: 3 }, id);
    expect(again.status).toBe(200);
    expect(again.body?.result?.isError ?? false, JSON.stringify(again.body)).toBe(false);
  }, 120_000);
});
