// Guards "every bad body gets its 4xx, never a 500 or a reset": oversized, non-JSON, malformed and deeply nested bodies on gateway.sock, the gateway's and observer's /mcp (a 5 MB note_create answered 413 that fetch can read) and the dashboard's POST /login.
import { request } from 'node:http';
import { join } from 'node:path';
import { createGatewayLogger, startGatewayHttp, type RunningGatewayHttp } from '@terminal-mcp/gateway';
import { startObserverHttp, type RunningObserverHttp } from '@terminal-mcp/observer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBrokerProcess, type BrokerProcess } from './helpers/broker-process.js';
import { startTmuxServer, type TmuxTestServer } from './helpers/tmux-server.js';
import { startWebServer, type WebServerProcess } from './helpers/web-stack.js';

const TOKEN = 'bad-bodies-token';
const deeplyNested = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

let tmux: TmuxTestServer;
let broker: BrokerProcess;
let gw: RunningGatewayHttp;
let observer: RunningObserverHttp;
let web: WebServerProcess;

beforeAll(async () => {
  tmux = await startTmuxServer();
  broker = await startBrokerProcess({ tmuxSocket: tmux.socketName, config: { permissions: { terminal_read: true }, log_level: 'warn' } });
  gw = await startGatewayHttp({ port: 0, env: broker.env, log: createGatewayLogger('silent'), token: TOKEN });
  observer = await startObserverHttp({ port: 0, env: broker.env, log: createGatewayLogger('silent') });
  web = await startWebServer(broker.env);
});
afterAll(async () => {
  await web?.stop();
  await observer?.close();
  await gw?.close();
  await broker?.stop();
  await tmux?.kill();
});

/** One HTTP request over a broker role socket; the status, or the transport error. */
function onSocket(socket: string, method: string, path: string, body: string | undefined, contentType = 'application/json'): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ socketPath: join(broker.socketDir, socket), method, path, headers: body === undefined ? {} : { 'content-type': contentType, 'content-length': Buffer.byteLength(body) } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const mcpHeaders = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

describe('gateway.sock', () => {
  const cases: [string, string, string | undefined, string, number][] = [
    ['malformed JSON', 'POST', '{not json', 'application/json', 400],
    ['deeply nested JSON', 'POST', deeplyNested(5000), 'application/json', 400],
    ['an oversized body', 'POST', `{"title":"${'x'.repeat(6 * 1024 * 1024)}"}`, 'application/json', 413],
    ['a text/plain body', 'POST', 'hello', 'text/plain', 415],
    ['a wrong method', 'PUT', '{}', 'application/json', 405],
    ['a query sent as a mutation method', 'GET', undefined, 'application/json', 405],
  ];
  for (const [what, method, body, type, status] of cases) {
    it(`answers ${what} with ${status}`, async () => {
      const res = await onSocket('gateway.sock', method, '/notes.create', body, type);
      expect(res.status).toBe(status);
      expect(res.body).not.toContain('INTERNAL');
    });
  }
});

describe('MCP front ends', () => {
  it('answers a 5 MB note_create with a 413 that fetch reads (no reset)', async () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'note_create', arguments: { title: 't', body: 'x'.repeat(5 * 1024 * 1024) } } });
    const res = await fetch(gw.mcpUrl, { method: 'POST', headers: mcpHeaders, body });
    expect(res.status).toBe(413);
    expect(await res.text()).toMatch(/too large/i);
    // The observer asks for OAuth before it reads a body: 401, but readable too.
    const refused = await fetch(observer.mcpUrl, { method: 'POST', headers: mcpHeaders, body });
    expect(refused.status).toBe(401);
  });

  it('answers malformed and deeply nested JSON with 400', async () => {
    for (const body of ['{not json', deeplyNested(100_000)]) {
      const res = await fetch(gw.mcpUrl, { method: 'POST', headers: mcpHeaders, body });
      expect(res.status).toBe(400);
    }
  });
});

describe('dashboard', () => {
  const origin = () => ({ origin: web.baseUrl });
  it('answers a text/plain POST /login with 415, not 500', async () => {
    const res = await fetch(`${web.baseUrl}/login`, { method: 'POST', headers: { ...origin(), 'content-type': 'text/plain' }, body: 'username=admin&password=x' });
    expect(res.status).toBe(415);
  });

  it('answers an oversized POST /login with 413 and says so, never "Internal error"', async () => {
    const res = await fetch(`${web.baseUrl}/login`, { method: 'POST', headers: { ...origin(), 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' }, body: `username=admin&password=${'x'.repeat(64 * 1024 * 1024)}` });
    expect(res.status).toBe(413);
    const text = await res.text();
    expect(text).not.toContain('Internal error');
    expect(text).toMatch(/too large/i);
  });
});
