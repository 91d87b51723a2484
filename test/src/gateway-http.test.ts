// Guards: the HTTP MCP gateway, end to end (real broker process, private tmux server, SDK client), serves only what the broker allows and refuses hostile Host, Origin, token and body.
import { spawn } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { DEFAULT_GATEWAY_TOOLSETS } from '@terminal-mcp/contract';
import { createGatewayLogger, ERROR_META_KEY, parseRows, startGatewayHttp, TOOLSET_TOOLS, type RunningGatewayHttp } from '@terminal-mcp/gateway';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBrokerProcess, type BrokerProcess } from './helpers/broker-process.js';
import { repoPath } from './helpers/repo.js';
import { startTmuxServer, type TmuxTestServer } from './helpers/tmux-server.js';
import { APPS_HOST_OPTIONS } from './helpers/apps-host.js';

const ALLOWED = 'allowed-one';
const DENIED = 'secret-one';
const ALLOWED_MARK = 'allowed-mark-5d1e';
const DENIED_MARK = 'secret-mark-9b7c';
const TOKEN = 'e2e-token-0f4a9c2b7d';
const CONFIG = "allowed_session_patterns: ['allowed-*']\nlog_level: warn\n";

let tmux: TmuxTestServer;
let broker: BrokerProcess;
let gw: RunningGatewayHttp;
let gwToken: RunningGatewayHttp;
const clients: Client[] = [];

async function waitForPaneText(session: string, mark: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    const text = await tmux.tmux(['capture-pane', '-p', '-t', `${session}:`]);
    // The mark comes before `exec sleep`; the status test expects the command after it.
    if (text.includes(mark) && (await tmux.tmux(['display-message', '-p', '-t', `${session}:`, '#{pane_current_command}'])) === 'sleep') return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${mark} never appeared in ${session}`);
}

async function connect(url: string, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'gateway-http-e2e', version: '0.0.0' }, APPS_HOST_OPTIONS);
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  clients.push(client);
  return client;
}

const call = (client: Client, name: string, args: Record<string, unknown> = {}) =>
  client.callTool({ name, arguments: args }) as Promise<CallToolResult>;
const textOf = (r: CallToolResult) => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
const errorCodeOf = (r: CallToolResult) => (r._meta?.[ERROR_META_KEY] as { error_code?: string } | undefined)?.error_code;

interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** node:http, not fetch: fetch will not let a test forge the Host header. */
function raw(gateway: RunningGatewayHttp, opts: { method?: string; path: string; headers?: Record<string, string>; body?: string | Buffer }): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port: gateway.port, method: opts.method ?? 'GET', path: opts.path, headers: { host: `127.0.0.1:${gateway.port}`, ...opts.headers } },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    if (opts.body !== undefined) req.end(opts.body);
    else req.end();
  });
}

const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
});
const statusCallBody = (session: string) =>
  JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'terminal_status', arguments: { session } } });

function metricValue(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

beforeAll(async () => {
  tmux = await startTmuxServer();
  await tmux.newSession(ALLOWED, `echo ${ALLOWED_MARK}; exec sleep 3600`, { width: 100, height: 30 });
  await tmux.newSession(DENIED, `echo ${DENIED_MARK}; exec sleep 3600`, { width: 100, height: 30 });
  await waitForPaneText(ALLOWED, ALLOWED_MARK);
  await waitForPaneText(DENIED, DENIED_MARK);
  broker = await startBrokerProcess({ tmuxSocket: tmux.socketName, config: CONFIG });
  const log = createGatewayLogger('silent');
  gw = await startGatewayHttp({ port: 0, env: broker.env, log, allowOpen: true });
  gwToken = await startGatewayHttp({ port: 0, env: broker.env, log, token: TOKEN });
});

afterAll(async () => {
  await Promise.allSettled(clients.map((c) => c.close()));
  await gw?.close();
  await gwToken?.close();
  await broker?.stop();
  await tmux?.kill();
});

describe('MCP over HTTP with a live broker', () => {
  it('lists the default catalogue (core, input, transcripts), its read tools all read-only', async () => {
    const client = await connect(gw.mcpUrl);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(DEFAULT_GATEWAY_TOOLSETS.flatMap((s) => TOOLSET_TOOLS[s]).sort());
    // Input tools are checked in input-tools.test.ts, terminal_run in run-tool.test.ts, terminal_request_human (it reaches a person) in web-secret-entry.test.ts; everything else is read-only.
    const reads = tools.filter((t) => t.name.startsWith('terminal_') && !/^terminal_(send_|run$|request_human$)/.test(t.name));
    expect(reads.map((t) => t.name).sort()).toEqual([
      'terminal_batch_inspect',
      'terminal_capture',
      'terminal_export_transcript',
      'terminal_input_context',
      'terminal_list_input_audit',
      'terminal_list_panes',
      'terminal_list_sessions',
      'terminal_node_health',
      'terminal_read_since',
      'terminal_resume_wait',
      'terminal_status',
      'terminal_tail',
      'terminal_wait_for_approval',
      'terminal_wait_for_state',
    ]);
    for (const t of reads) expect(t.annotations?.readOnlyHint).toBe(true);
    expect(client.getInstructions()).toMatch(/untrusted data/);
  });

  it('discovery lists allowed and denied sessions with the right access', async () => {
    const client = await connect(gw.mcpUrl);
    const result = await call(client, 'terminal_list_sessions');
    expect(result.isError).toBeFalsy();
    const sessions = parseRows(textOf(result), 'name');
    expect(sessions.find((s) => s.name === ALLOWED)?.access).toBe('r');
    expect(sessions.find((s) => s.name === DENIED)?.access).toBe('-');
    // The text table: the denied session's row ends in, or has, the access cell `-`.
    expect(textOf(result)).toMatch(new RegExp(`^${DENIED}\\t(.*\\t)?-(\\t|$)`, 'm'));
    // Discovery is metadata only.
    expect(JSON.stringify(result)).not.toContain(DENIED_MARK);
  });

  it('tail of an allowed session returns what was printed in it', async () => {
    const client = await connect(gw.mcpUrl);
    const result = await call(client, 'terminal_tail', { session: ALLOWED, lines: 20 });
    expect(result.isError).toBeFalsy();
    expect((result.structuredContent as { text: string }).text).toContain(ALLOWED_MARK);
    expect(textOf(result)).toContain(ALLOWED_MARK);
  });

  it('capture and status of an allowed session work', async () => {
    const client = await connect(gw.mcpUrl);
    const capture = await call(client, 'terminal_capture', { session: ALLOWED });
    expect(capture.isError).toBeFalsy();
    expect(capture.structuredContent, 'capture answers with text only').toBeUndefined();
    expect(textOf(capture)).toContain(ALLOWED_MARK);
    const status = await call(client, 'terminal_status', { session: ALLOWED });
    expect(status.isError).toBeFalsy();
    expect(status.structuredContent).toMatchObject({ session: ALLOWED, current_command: 'sleep' });
  });

  it('tail of a denied session is SESSION_NOT_ALLOWED and reveals none of its text', async () => {
    const client = await connect(gw.mcpUrl);
    for (const tool of ['terminal_tail', 'terminal_capture', 'terminal_status']) {
      const result = await call(client, tool, { session: DENIED });
      expect(result.isError).toBe(true);
      expect(errorCodeOf(result)).toBe('SESSION_NOT_ALLOWED');
      expect(textOf(result)).toMatch(/^SESSION_NOT_ALLOWED: /);
      expect(JSON.stringify(result)).not.toContain(DENIED_MARK);
    }
  });

  it('batch inspect reports the denied session inline without its text', async () => {
    const client = await connect(gw.mcpUrl);
    const result = await call(client, 'terminal_batch_inspect', { sessions: [ALLOWED, DENIED], lines: 10 });
    expect(result.isError).toBeFalsy();
    // One block per session: a head line with its status and fields, then its text, if any.
    const heads = textOf(result).split('\n').filter((l) => l.startsWith('== '));
    expect(heads.find((l) => l.startsWith(`== ${JSON.stringify(ALLOWED)}: `))).toMatch(/ ok=true .*lines=\d+$/);
    expect(heads.find((l) => l.startsWith(`== ${JSON.stringify(DENIED)}: `))).toMatch(/^== "[^"]+": SESSION_NOT_ALLOWED \(.*ok=false$/);
    expect(textOf(result)).toContain(ALLOWED_MARK);
    expect(JSON.stringify(result)).not.toContain(DENIED_MARK);
  });

  it('an unknown session is SESSION_NOT_FOUND', async () => {
    const client = await connect(gw.mcpUrl);
    const result = await call(client, 'terminal_tail', { session: 'allowed-does-not-exist' });
    expect(result.isError).toBe(true);
    expect(errorCodeOf(result)).toBe('SESSION_NOT_FOUND');
    expect(textOf(result)).toContain('Hint: Call terminal_list_sessions');
  });

  it('refuses an unknown argument with INVALID_ARGUMENT and a suggestion, never dropping it', async () => {
    const client = await connect(gw.mcpUrl);
    const result = await call(client, 'terminal_tail', { session: ALLOWED, max_lines: 5 });
    expect(result.isError).toBe(true);
    expect(errorCodeOf(result)).toBe('INVALID_ARGUMENT');
    expect(textOf(result)).toMatch(/^INVALID_ARGUMENT: unknown argument "max_lines"; did you mean "lines"\? Hint: .*terminal_tail takes: session, pane, lines, strip_ansi/);
  });
});

describe('HTTP edge: Host, Origin, body, methods', () => {
  it('refuses a foreign Host (DNS rebinding) with 403 before any tool runs', async () => {
    const before = metricValue(gw.metrics.render(), 'terminal_mcp_tool_calls_total{tool="terminal_status"}');
    for (const host of [`evil.example:${gw.port}`, 'evil.example', `127.0.0.1:${gw.port + 1}`]) {
      const res = await raw(gw, { method: 'POST', path: '/mcp', headers: { ...MCP_HEADERS, host }, body: statusCallBody(ALLOWED) });
      expect(res.status).toBe(403);
      expect(res.body).not.toContain(ALLOWED_MARK);
    }
    const health = await raw(gw, { path: '/health/live', headers: { host: `evil.example:${gw.port}` } });
    expect(health.status).toBe(403);
    const after = metricValue(gw.metrics.render(), 'terminal_mcp_tool_calls_total{tool="terminal_status"}');
    expect(after).toBe(before);
    expect(metricValue(gw.metrics.render(), 'terminal_mcp_http_rejected_total{reason="host"}')).toBeGreaterThanOrEqual(4);
  });

  it('refuses a foreign Origin, including another loopback port, with 403', async () => {
    for (const origin of ['http://evil.example', 'http://127.0.0.1:9999', `https://evil.example:${gw.port}`, 'null']) {
      const res = await raw(gw, { method: 'POST', path: '/mcp', headers: { ...MCP_HEADERS, origin }, body: INITIALIZE });
      expect(res.status, origin).toBe(403);
    }
  });

  it('accepts our own origin and no origin', async () => {
    const cases: Record<string, string>[] = [
      { origin: `http://127.0.0.1:${gw.port}` },
      { origin: `http://localhost:${gw.port}`, host: `localhost:${gw.port}` },
      {},
    ];
    for (const headers of cases) {
      const res = await raw(gw, { method: 'POST', path: '/mcp', headers: { ...MCP_HEADERS, ...headers }, body: INITIALIZE });
      expect(res.status).toBe(200);
      expect(JSON.parse(res.body)).toMatchObject({ jsonrpc: '2.0', id: 1, result: { serverInfo: { name: 'terminal-mcp' } } });
    }
  });

  it('refuses a body over 1 MiB with 413', async () => {
    const big = Buffer.alloc(1024 * 1024 + 10, 0x20);
    const res = await raw(gw, { method: 'POST', path: '/mcp', headers: MCP_HEADERS, body: big });
    expect(res.status).toBe(413);
  });

  it('refuses a chunked body that grows past 1 MiB with 413', async () => {
    const res = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(
        { host: '127.0.0.1', port: gw.port, method: 'POST', path: '/mcp', headers: { ...MCP_HEADERS, host: `127.0.0.1:${gw.port}` } },
        (r) => {
          r.resume();
          resolve(r.statusCode ?? 0);
        },
      );
      // The server stops reading and closes after its 413; our remaining writes may then
      // fail with EPIPE, which is fine once the answer arrived (a later resolve is a no-op).
      req.on('error', (err) => setTimeout(() => reject(err), 1_000));
      const chunk = Buffer.alloc(256 * 1024, 0x20);
      for (let i = 0; i < 5; i++) req.write(chunk); // no Content-Length: chunked
      req.end();
    });
    expect(res).toBe(413);
  });

  it('answers invalid JSON with a JSON-RPC parse error', async () => {
    const res = await raw(gw, { method: 'POST', path: '/mcp', headers: MCP_HEADERS, body: '{not json' });
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body)).toMatchObject({ error: { code: -32700 } });
  });

  it('offers no SSE stream: GET and PUT on /mcp are 405 (Allow: POST, DELETE), unknown paths 404', async () => {
    for (const method of ['GET', 'PUT']) {
      const res = await raw(gw, { method, path: '/mcp', headers: { accept: 'text/event-stream' } });
      expect(res.status, method).toBe(405);
      expect(res.headers.allow).toBe('POST, DELETE');
    }
    expect((await raw(gw, { path: '/nope' })).status).toBe(404);
  });

  it('DELETE ends a live session: 400 without an id, 404 for an unknown one, 200 once, then 404', async () => {
    expect((await raw(gw, { method: 'DELETE', path: '/mcp' })).status).toBe(400);
    expect((await raw(gw, { method: 'DELETE', path: '/mcp', headers: { 'mcp-session-id': 'unknown-session-id-000000' } })).status).toBe(404);
    const init = await raw(gw, { method: 'POST', path: '/mcp', headers: MCP_HEADERS, body: INITIALIZE });
    const id = init.headers['mcp-session-id'] as string;
    const inSession = { ...MCP_HEADERS, 'mcp-session-id': id };
    expect((await raw(gw, { method: 'POST', path: '/mcp', headers: inSession, body: statusCallBody(ALLOWED) })).headers['mcp-session-id']).toBe(id);
    expect((await raw(gw, { method: 'DELETE', path: '/mcp', headers: { 'mcp-session-id': id } })).status).toBe(200);
    expect((await raw(gw, { method: 'DELETE', path: '/mcp', headers: { 'mcp-session-id': id } })).status).toBe(404);
    // The id is now unknown: served statelessly, like any expired one.
    const after = await raw(gw, { method: 'POST', path: '/mcp', headers: inSession, body: statusCallBody(ALLOWED) });
    expect(after.status).toBe(200);
    expect(after.headers['mcp-session-id']).toBeUndefined();
  });

  it('the SDK client ends its session with terminateSession', async () => {
    const client = new Client({ name: 'gateway-http-e2e', version: '0.0.0' }, APPS_HOST_OPTIONS);
    const transport = new StreamableHTTPClientTransport(new URL(gw.mcpUrl));
    await client.connect(transport);
    clients.push(client);
    const id = transport.sessionId!;
    await transport.terminateSession();
    expect(transport.sessionId).toBeUndefined();
    expect((await raw(gw, { method: 'DELETE', path: '/mcp', headers: { 'mcp-session-id': id } })).status).toBe(404);
  });

  it('keeps a session for a client that sends its Mcp-Session-Id back; requests without it, or with an unknown one, are served statelessly', async () => {
    const init = await raw(gw, { method: 'POST', path: '/mcp', headers: MCP_HEADERS, body: INITIALIZE });
    expect(init.status).toBe(200);
    expect(init.headers['mcp-session-id']).toMatch(/^[A-Za-z0-9_-]{22}$/);
    for (const headers of [MCP_HEADERS, { ...MCP_HEADERS, 'mcp-session-id': 'unknown-session-id-000000' }]) {
      const status = await raw(gw, { method: 'POST', path: '/mcp', headers, body: statusCallBody(ALLOWED) });
      expect(status.status).toBe(200);
      expect(status.body).toContain('"session":"allowed-one"');
      // A stateless answer names no session.
      expect(status.headers['mcp-session-id']).toBeUndefined();
    }
    const id = init.headers['mcp-session-id'] as string;
    const inSession = await raw(gw, { method: 'POST', path: '/mcp', headers: { ...MCP_HEADERS, 'mcp-session-id': id }, body: statusCallBody(ALLOWED) });
    expect(inSession.status).toBe(200);
    // This client declared no MCP Apps support at initialize: the answer is its text alone.
    expect(inSession.body).toContain('Session \\"allowed-one\\"');
    expect(inSession.body).not.toContain('structuredContent');
    // Served by the live session: its transport names it on every answer.
    expect(inSession.headers['mcp-session-id']).toBe(id);
    // Answers carry a tool's output: never cached, like every other answer of the gateway.
    expect(inSession.headers['cache-control']).toBe('no-store');
  });
});

describe('bearer token', () => {
  it('refuses /mcp without a token or with a wrong one (401, WWW-Authenticate)', async () => {
    const missing = await raw(gwToken, { method: 'POST', path: '/mcp', headers: MCP_HEADERS, body: INITIALIZE });
    expect(missing.status).toBe(401);
    expect(missing.headers['www-authenticate']).toMatch(/^Bearer /);
    for (const authorization of [`Bearer ${TOKEN}x`, `Bearer ${TOKEN.slice(1)}`, `Basic ${TOKEN}`, TOKEN]) {
      const wrong = await raw(gwToken, { method: 'POST', path: '/mcp', headers: { ...MCP_HEADERS, authorization }, body: INITIALIZE });
      expect(wrong.status, authorization).toBe(401);
    }
    await expect(connect(gwToken.mcpUrl)).rejects.toThrow();
  });

  it('never takes a session id for authentication: a live session refuses a request without the token or with a wrong one', async () => {
    const auth = { authorization: `Bearer ${TOKEN}` };
    const init = await raw(gwToken, { method: 'POST', path: '/mcp', headers: { ...MCP_HEADERS, ...auth }, body: INITIALIZE });
    expect(init.status).toBe(200);
    const id = init.headers['mcp-session-id'] as string;
    expect(id).toMatch(/^[A-Za-z0-9_-]{22}$/);
    for (const headers of [{}, { authorization: `Bearer ${TOKEN}x` }] as Record<string, string>[]) {
      const refused = await raw(gwToken, { method: 'POST', path: '/mcp', headers: { ...MCP_HEADERS, ...headers, 'mcp-session-id': id }, body: statusCallBody(ALLOWED) });
      expect(refused.status).toBe(401);
      expect(refused.body).not.toContain(ALLOWED);
    }
    const served = await raw(gwToken, { method: 'POST', path: '/mcp', headers: { ...MCP_HEADERS, ...auth, 'mcp-session-id': id }, body: statusCallBody(ALLOWED) });
    expect(served.status).toBe(200);
    expect(served.headers['mcp-session-id']).toBe(id);
  });

  it('serves MCP with the right token', async () => {
    const client = await connect(gwToken.mcpUrl, { authorization: `Bearer ${TOKEN}` });
    const result = await call(client, 'terminal_tail', { session: ALLOWED });
    expect((result.structuredContent as { text: string }).text).toContain(ALLOWED_MARK);
  });

  it('guards /health/metrics, and the details of /health/ready and /version, but not /health/live', async () => {
    expect((await raw(gwToken, { path: '/health/metrics' })).status).toBe(401);
    expect((await raw(gwToken, { path: '/health/metrics', headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(200);
    expect((await raw(gwToken, { path: '/health/live' })).status).toBe(200);
    const ready = await raw(gwToken, { path: '/health/ready' });
    expect(ready.status).toBe(200);
    // Without the token: a yes/no and the version only — no tmux or store detail, no commit.
    expect(JSON.parse(ready.body)).toEqual({ ready: true });
    const version = await raw(gwToken, { path: '/version' });
    expect(version.status).toBe(200);
    expect(Object.keys(JSON.parse(version.body) as object).sort()).toEqual(['name', 'version']);
    const auth = { authorization: `Bearer ${TOKEN}` };
    expect(JSON.parse((await raw(gwToken, { path: '/health/ready', headers: auth })).body)).toHaveProperty('tmux');
    expect(JSON.parse((await raw(gwToken, { path: '/version', headers: auth })).body)).toHaveProperty('commit');
    // Host is still checked on the open endpoints.
    expect((await raw(gwToken, { path: '/health/live', headers: { host: 'evil.example' } })).status).toBe(403);
  });
});

describe('operational endpoints', () => {
  it('/health/live is {ok:true} and says how /mcp is protected', async () => {
    const res = await raw(gw, { path: '/health/live' });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toEqual({ ok: true, protection: 'open' });
    expect(JSON.parse((await raw(gwToken, { path: '/health/live' })).body)).toEqual({ ok: true, protection: 'token' });
  });

  it('/health/ready is 200 with the broker up', async () => {
    const res = await raw(gw, { path: '/health/ready' });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toMatchObject({ ready: true, tmux: { ok: true } });
  });

  it('/health/metrics counts calls for a tool after a call', async () => {
    const client = await connect(gw.mcpUrl);
    const before = metricValue((await raw(gw, { path: '/health/metrics' })).body, 'terminal_mcp_tool_calls_total{tool="terminal_list_sessions"}');
    await call(client, 'terminal_list_sessions');
    const res = await raw(gw, { path: '/health/metrics' });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(res.body).toContain('# TYPE terminal_mcp_tool_calls_total counter');
    expect(metricValue(res.body, 'terminal_mcp_tool_calls_total{tool="terminal_list_sessions"}')).toBe(before + 1);
    expect(res.body).toContain('terminal_mcp_tool_duration_seconds_count{tool="terminal_list_sessions"}');
  });

  it('/version names the gateway and its version', async () => {
    const res = await raw(gw, { path: '/version' });
    expect(res.status).toBe(200);
    const body = JSON.parse(res.body) as Record<string, unknown>;
    expect(body).toMatchObject({ name: 'terminal-mcp-gateway', version: '0.1.0' });
    expect(typeof body.commit).toBe('string');
    expect(body).toHaveProperty('dirty');
  });
});

describe('terminal-mcp-http command', () => {
  function runHttpBin(env: NodeJS.ProcessEnv) {
    return spawn(process.execPath, [repoPath('services/gateway/dist/bin/http.js')], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  }

  it.each(['0.0.0.0', '::', '192.168.1.10'])('refuses to bind %s with exit code 2', async (host) => {
    const child = runHttpBin({ ...broker.env, TERMINAL_MCP_GATEWAY_HOST: host, TERMINAL_MCP_GATEWAY_PORT: '0' });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
    expect(code).toBe(2);
    expect(stderr).toMatch(/refusing to listen on/);
    expect(stderr).toMatch(/loopback only/);
  });

  it('refuses to start open (no token, no OAuth) unless the operator allows it, with exit code 2', async () => {
    const env: NodeJS.ProcessEnv = { ...broker.env, TERMINAL_MCP_GATEWAY_PORT: '0' };
    delete env.TERMINAL_MCP_GATEWAY_TOKEN;
    delete env.TERMINAL_MCP_GATEWAY_ALLOW_OPEN;
    const child = runHttpBin(env);
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
    expect(code).toBe(2);
    expect(stderr).toMatch(/refusing to start without a token or OAuth: every local user could read and type/);
    expect(stderr).toMatch(/TERMINAL_MCP_GATEWAY_ALLOW_OPEN=1/);
  });

  it('prints the MCP and health URLs and how /mcp is protected on stdout (JSON log lines only on stderr), serves, and stops cleanly on SIGTERM', async () => {
    const child = runHttpBin({ ...broker.env, TERMINAL_MCP_GATEWAY_PORT: '0', TERMINAL_MCP_LOG_LEVEL: 'info', TERMINAL_MCP_GATEWAY_ALLOW_OPEN: '1' });
    let stderr = '';
    let stdout = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no URL printed: ${stdout} ${stderr}`)), 60_000);
      child.stdout.on('data', (c: Buffer) => {
        stdout += c.toString();
        const m = /MCP endpoint (http:\/\/\S+)/.exec(stdout);
        if (m && /health (http:\/\/\S+\/health\/ready)/.test(stdout)) {
          clearTimeout(timer);
          resolve(m[1]!);
        }
      });
    });
    const res = await fetch(new URL('/health/ready', url));
    expect(res.status).toBe(200);
    expect(stdout).toContain('OPEN: no token and no OAuth, so every local user can read and type through /mcp');
    expect(await (await fetch(new URL('/health/live', url))).json()).toEqual({ ok: true, protection: 'open' });
    child.kill('SIGTERM');
    const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
    expect(code).toBe(0);
    // What npm start and the launcher write to the log file: one JSON object per line.
    const lines = stderr.trim().split('\n');
    for (const line of lines) expect(() => JSON.parse(line), line).not.toThrow();
    expect(lines.map((l) => JSON.parse(l).event)).toContain('gateway.listening');
  });
});

describe('when the broker or tmux is down', () => {
  it('/health/ready is 503 with the detail when tmux is gone', async () => {
    await tmux.kill();
    const deadline = Date.now() + 10_000;
    let res = await raw(gw, { path: '/health/ready' });
    while (res.status !== 503 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      res = await raw(gw, { path: '/health/ready' });
    }
    expect(res.status).toBe(503);
    expect(JSON.parse(res.body)).toMatchObject({ ready: false, tmux: { ok: false } });
  });

  it('tools answer BROKER_UNAVAILABLE and /health/ready is 503 BROKER_UNAVAILABLE once the broker stopped', async () => {
    const client = await connect(gw.mcpUrl);
    await broker.stop();
    const result = await call(client, 'terminal_list_sessions');
    expect(result.isError).toBe(true);
    expect(errorCodeOf(result)).toBe('BROKER_UNAVAILABLE');
    expect(textOf(result)).toMatch(/^BROKER_UNAVAILABLE: could not reach the broker/);
    const ready = await raw(gw, { path: '/health/ready' });
    expect(ready.status).toBe(503);
    expect(JSON.parse(ready.body)).toMatchObject({ ready: false, error_code: 'BROKER_UNAVAILABLE' });
  });
});
