// Guards: the MCP HTTP service both front ends run (createMcpHttpService) over real HTTP on 127.0.0.1 with a real SDK client: Host/Origin gate, authentication before anything on /mcp and guarded routes, stateless and live-session serving (a session answers its own principal only, DELETE ends it), body limits, method and route answers, the service's own error bodies, and the settings reader.
import { request as httpRequest } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { sendJson } from '@terminal-mcp/http-guard';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createMcpHttpService, type RunningMcpHttpService } from './mcp-http-service.js';
import type { RefusalReason } from './mcp-http-endpoint.js';
import { httpServiceSettingsFromEnv, ServiceConfigError } from './service-settings.js';

interface Caller {
  principal: string;
  /** Stands for a refreshable credential: `Bearer alice-v2` is alice presenting v2. */
  credential: string;
}

const ERRORS = {
  notFound: { error: 'nope' },
  methodNotAllowed: { error: 'wrong method' },
  internal: { error: 'broken' },
  refused: (message: string) => ({ refused: message }),
};

class TestConfigError extends ServiceConfigError {
  constructor(message: string) {
    super('TEST_CONFIG', message);
  }
}

interface Started {
  service: RunningMcpHttpService;
  url: string;
  rejections: RefusalReason[];
  /** How many McpServers were built, and how many of them have closed. */
  servers: () => number;
  closedServers: () => number;
}

const running: RunningMcpHttpService[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((s) => s.close()));
});

/** A service whose callers are named by their bearer token (`Bearer alice`, `Bearer
 * alice-v2`); tool `who` answers the principal the server was built for and the credential
 * of the latest request it served. */
async function start(options: { liveSessions?: boolean; maxBodyBytes?: number } = {}): Promise<Started> {
  const rejections: RefusalReason[] = [];
  let built = 0;
  let closed = 0;
  const service = await createMcpHttpService<Caller>({
    host: '127.0.0.1',
    port: 0,
    serviceName: 'the test service',
    remoteAdvice: 'Use a tunnel.',
    configError: (m) => new TestConfigError(m),
    liveSessions: options.liveSessions ?? false,
    maxBodyBytes: options.maxBodyBytes,
    log: pino({ level: 'silent' }),
    errors: ERRORS,
    observeRejection: (reason) => rejections.push(reason),
    handlers: ({ refuse }) => ({
      async authenticate(req, res) {
        const m = /^Bearer (\w+)(?:-(\w+))?$/.exec(req.headers.authorization ?? '');
        if (m === null) return void refuse(req, res, 401, 'token', 'Unauthorized: name yourself', { 'WWW-Authenticate': 'Bearer' });
        return { principal: m[1]!, credential: m[2] ?? 'v1' };
      },
      createServer(caller, latest) {
        built++;
        const server = new McpServer({ name: 'service-test', version: '0' });
        server.server.onclose = () => void closed++;
        server.registerTool('who', { description: 'who is asking' }, async () => ({
          content: [{ type: 'text', text: `${caller.principal}/${latest().credential}` }],
        }));
        return server;
      },
      routes: {
        '/hello': { methods: { GET: (_req, res) => sendJson(res, 200, { hello: true }) } },
        '/mine': { guard: 'mcp', methods: { GET: (_req, res, caller) => sendJson(res, 200, { caller: caller?.principal }) } },
        '/closed': { guard: (req, res) => (refuse(req, res, 401, 'token', 'closed'), false), methods: { GET: (_req, res) => sendJson(res, 200, {}) } },
        '/boom': {
          methods: {
            GET: () => {
              throw new Error('handler bug');
            },
          },
        },
      },
    }),
  });
  running.push(service);
  return { service, url: `${service.base}/mcp`, rejections, servers: () => built, closedServers: () => closed };
}

interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** node:http, not fetch: fetch may not set Host. */
function raw(url: string, method: string, headers: Record<string, string> = {}, body?: string): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function connect(url: string, name: string): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const client = new Client({ name: 'service-test-client', version: '0' });
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${name}` } } });
  await client.connect(transport);
  return { client, transport };
}

const textOf = (r: unknown) => ((r as CallToolResult).content[0] as { text: string }).text;
const MCP_HEADERS = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };

describe('createMcpHttpService', () => {
  it('serves a real SDK client statelessly, with its caller', async () => {
    const s = await start();
    const { client } = await connect(s.url, 'alice');
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['who']);
    expect(textOf(await client.callTool({ name: 'who', arguments: {} }))).toBe('alice/v1');
    // Stateless: initialize, list and call each built their own server.
    expect(s.servers()).toBeGreaterThanOrEqual(3);
    await client.close();
  });

  it('authenticates /mcp before the method: no credential is 401 for any method, GET with one is 405', async () => {
    const s = await start();
    for (const method of ['POST', 'GET', 'DELETE']) {
      const r = await raw(s.url, method, MCP_HEADERS, method === 'POST' ? '{}' : undefined);
      expect(r.status).toBe(401);
      expect(r.headers['www-authenticate']).toBe('Bearer');
      expect(JSON.parse(r.body).error.message).toBe('Unauthorized: name yourself');
    }
    expect(s.rejections).toEqual(['token', 'token', 'token']);
    const get = await raw(s.url, 'GET', { Authorization: 'Bearer alice' });
    expect(get.status).toBe(405);
    expect(get.headers.allow).toBe('POST');
    expect(JSON.parse(get.body).error.message).toMatch(/stateless; use POST/);
  });

  it('refuses a foreign Host and Origin before anything else, in the body each path expects', async () => {
    const s = await start();
    const badHost = await raw(s.url, 'POST', { ...MCP_HEADERS, Host: 'evil.example' }, '{}');
    expect(badHost.status).toBe(403);
    expect(JSON.parse(badHost.body).error.message).toBe('Forbidden: Host header not allowed');
    const badOrigin = await raw(`${s.service.base}/hello`, 'GET', { Origin: 'https://evil.example' });
    expect(badOrigin.status).toBe(403);
    expect(JSON.parse(badOrigin.body)).toEqual({ refused: 'Forbidden: Origin not allowed' });
    // Refused before authentication: no credential was asked for.
    expect(s.rejections).toEqual(['host', 'origin']);
    expect((await raw(`${s.service.base}/hello`, 'GET', { Origin: s.service.base })).status).toBe(200);
  });

  it("answers the service's routes: 404, 405 with Allow, HEAD as GET, guards before the method, 500 on a handler bug", async () => {
    const s = await start();
    const base = s.service.base;
    expect(await raw(`${base}/nothing`, 'GET')).toMatchObject({ status: 404, body: JSON.stringify(ERRORS.notFound) });
    const post = await raw(`${base}/hello`, 'POST');
    expect(post).toMatchObject({ status: 405, body: JSON.stringify(ERRORS.methodNotAllowed) });
    expect(post.headers.allow).toBe('GET');
    const head = await raw(`${base}/hello`, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.body).toBe('');
    // The 'mcp' guard authenticates as /mcp does, before the method, and hands the caller on.
    expect((await raw(`${base}/mine`, 'POST')).status).toBe(401);
    expect(JSON.parse((await raw(`${base}/mine`, 'GET', { Authorization: 'Bearer bob' })).body)).toEqual({ caller: 'bob' });
    expect(await raw(`${base}/closed`, 'POST')).toMatchObject({ status: 401, body: JSON.stringify({ refused: 'closed' }) });
    expect(await raw(`${base}/boom`, 'GET')).toMatchObject({ status: 500, body: JSON.stringify(ERRORS.internal) });
  });

  it('limits the body and refuses invalid JSON, counting both', async () => {
    const s = await start({ maxBodyBytes: 64 });
    const auth = { ...MCP_HEADERS, Authorization: 'Bearer alice' };
    const big = await raw(s.url, 'POST', auth, JSON.stringify({ padding: 'x'.repeat(200) }));
    expect(big.status).toBe(413);
    expect(JSON.parse(big.body).error.message).toMatch(/must not exceed 64 bytes/);
    const bad = await raw(s.url, 'POST', auth, '{not json');
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.body).error.code).toBe(-32700);
    expect(s.rejections).toEqual(['body_too_large', 'bad_json']);
  });

  it('keeps a live session for its own principal only, and DELETE ends it', async () => {
    const s = await start({ liveSessions: true });
    const { client, transport } = await connect(s.url, 'alice');
    const sessionId = transport.sessionId!;
    expect(sessionId).toMatch(/^[\w-]{20,}$/);
    for (let i = 0; i < 3; i++) expect(textOf(await client.callTool({ name: 'who', arguments: {} }))).toBe('alice/v1');
    // The same principal with a new credential (a refreshed token) reaches the same server,
    // which sees the credential of this latest request.
    const who = JSON.stringify({ jsonrpc: '2.0', id: 8, method: 'tools/call', params: { name: 'who', arguments: {} } });
    const refreshed = await raw(s.url, 'POST', { ...MCP_HEADERS, Authorization: 'Bearer alice-v2', 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18' }, who);
    expect(textOf(JSON.parse(refreshed.body).result)).toBe('alice/v2');
    // One server for the whole session.
    expect(s.servers()).toBe(1);

    // Another principal presenting the id is refused, on POST and on DELETE.
    const call = JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'who', arguments: {} } });
    const mallory = { ...MCP_HEADERS, Authorization: 'Bearer mallory', 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18' };
    const stolen = await raw(s.url, 'POST', mallory, call);
    expect(stolen.status).toBe(403);
    expect(JSON.parse(stolen.body).error.message).toMatch(/belongs to another credential/);
    expect((await raw(s.url, 'DELETE', mallory)).status).toBe(403);
    expect(s.rejections).toEqual(['session', 'session']);
    const get = await raw(s.url, 'GET', { Authorization: 'Bearer alice' });
    expect(get.headers.allow).toBe('POST, DELETE');

    await transport.terminateSession();
    const owner = { ...mallory, Authorization: 'Bearer alice' };
    expect((await raw(s.url, 'DELETE', owner)).status).toBe(404);
    // An ended session's id falls back to stateless serving.
    const after = await raw(s.url, 'POST', owner, call);
    expect(after.status).toBe(200);
    expect(s.servers()).toBe(2);
    await client.close();
  });

  it('refuses to listen anywhere but loopback, and close() ends live sessions', async () => {
    await expect(
      createMcpHttpService<Caller>({
        host: '0.0.0.0',
        port: 0,
        serviceName: 'the test service',
        remoteAdvice: 'Use a tunnel.',
        configError: (m) => new TestConfigError(m),
        log: pino({ level: 'silent' }),
        errors: ERRORS,
        handlers: () => ({ authenticate: async () => undefined, createServer: () => new McpServer({ name: 'x', version: '0' }) }),
      }),
    ).rejects.toThrow(/refusing to listen on 0\.0\.0\.0: the test service binds loopback only .*Use a tunnel\./);

    const s = await start({ liveSessions: true });
    const { transport } = await connect(s.url, 'alice');
    const id = transport.sessionId!;
    // The session's server is open until the service closes.
    expect(s.servers() - s.closedServers()).toBe(1);
    await s.service.close();
    expect(s.servers() - s.closedServers()).toBe(0);
    running.splice(running.indexOf(s.service), 1);
    await expect(raw(s.url, 'POST', { ...MCP_HEADERS, Authorization: 'Bearer alice', 'mcp-session-id': id }, '{}')).rejects.toThrow(/ECONNREFUSED/);
  });
});

describe('httpServiceSettingsFromEnv', () => {
  const spec = { prefix: 'X_SVC', defaultHost: '127.0.0.1', defaultPort: 9000, refusal: (m: string) => new TestConfigError(m) };

  it('reads the settings under its prefix, with defaults', () => {
    expect(httpServiceSettingsFromEnv({}, spec)).toEqual({ host: '127.0.0.1', port: 9000, publicHosts: [], publicUrl: undefined, clientIpHeader: undefined });
    const env = { X_SVC_HOST: ' ::1 ', X_SVC_PORT: '0', X_SVC_PUBLIC_URL: 'https://mcp.example.com', X_SVC_CLIENT_IP_HEADER: 'CF-Connecting-IP', TERMINAL_MCP_PUBLIC_HOSTS: 'a.example.com' };
    expect(httpServiceSettingsFromEnv(env, spec)).toMatchObject({ host: '::1', port: 0, publicUrl: 'https://mcp.example.com', clientIpHeader: 'cf-connecting-ip', publicHosts: [{ hostname: 'a.example.com' }] });
  });

  it('refuses what it cannot read, naming the variable', () => {
    expect(() => httpServiceSettingsFromEnv({ X_SVC_PORT: '80x' }, spec)).toThrow(/X_SVC_PORT/);
    expect(() => httpServiceSettingsFromEnv({ X_SVC_PUBLIC_URL: 'http://mcp.example.com' }, spec)).toThrow(TestConfigError);
  });
});
