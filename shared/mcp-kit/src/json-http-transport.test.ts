// Guards: our node:http Streamable HTTP transport serves the real SDK client, and answers every transport rule (Accept, Content-Type, session id, protocol version, batches, notifications, DELETE) as the SDK transport does.
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { LATEST_PROTOCOL_VERSION, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { JsonHttpServerTransport } from './json-http-transport.js';

/** About a 200-line tail. */
const BIG_TEXT = Array.from({ length: 200 }, (_, i) => `line ${i}: lorem ipsum dolor sit amet, consectetur adipiscing elit`).join('\n');
const NO_STORE = { 'Cache-Control': 'no-store' };

interface Host {
  url: string;
  port: number;
  /** The stateful host's one transport (undefined until initialize, and when stateless). */
  transport(): JsonHttpServerTransport | undefined;
  /** Lets the `hold` tool answer. */
  release(): void;
  /** Resolves once a `hold` call is inside the tool. */
  held: Promise<void>;
  initialized: string[];
  closedSessions: string[];
  close(): Promise<void>;
}

interface Gate {
  wait: Promise<void>;
  entered(): void;
}

function mcpServer(gate: Gate): McpServer {
  const server = new McpServer({ name: 'transport-test', version: '0' });
  server.registerTool('big', { description: 'a long text' }, async () => ({ content: [{ type: 'text', text: BIG_TEXT }] }));
  server.registerTool('who', { description: 'the user agent of this request' }, async (extra) => ({
    content: [{ type: 'text', text: String(extra.requestInfo?.headers['user-agent']) }],
  }));
  server.registerTool('hold', { description: 'answers when the test releases it' }, async () => {
    gate.entered();
    await gate.wait;
    return { content: [{ type: 'text', text: 'released' }] };
  });
  return server;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (text += c));
    req.on('end', () => resolve(text));
  });
}

/** A host as small as the gateway's: stateful = ONE session (one server, one transport)
 * created by the first request; stateless = a fresh pair per request. */
async function startHost(mode: 'stateful' | 'stateless'): Promise<Host> {
  let releaseNow!: () => void;
  let entered!: () => void;
  const held = new Promise<void>((r) => (entered = r));
  const gate: Gate = { wait: new Promise<void>((r) => (releaseNow = r)), entered };
  let stateful: JsonHttpServerTransport | undefined;
  let counter = 0;
  const initialized: string[] = [];
  const closedSessions: string[] = [];
  const handler = async (req: IncomingMessage, res: ServerResponse) => {
    const text = await readBody(req);
    let body: unknown;
    if (text !== '') {
      try {
        body = JSON.parse(text);
      } catch {
        res.writeHead(400).end();
        return;
      }
    }
    if (mode === 'stateless') {
      const server = mcpServer(gate);
      const transport = new JsonHttpServerTransport({ responseHeaders: NO_STORE });
      res.on('close', () => void server.close());
      await server.connect(transport);
      return transport.handleRequest(req, res, body);
    }
    if (stateful === undefined) {
      stateful = new JsonHttpServerTransport({
        responseHeaders: NO_STORE,
        sessionIdGenerator: () => `session-${port}-${++counter}-abcdefgh`,
        onsessioninitialized: (id) => void initialized.push(id),
        onsessionclosed: (id) => void closedSessions.push(id),
      });
      await mcpServer(gate).connect(stateful);
    }
    return stateful.handleRequest(req, res, body);
  };
  const http: Server = createServer((req, res) => void handler(req, res).catch(() => res.destroy()));
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  const port = (http.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    port,
    transport: () => stateful,
    release: () => releaseNow(),
    held,
    initialized,
    closedSessions,
    close: () => {
      http.closeAllConnections();
      return new Promise((r) => http.close(() => r()));
    },
  };
}

interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  json(): unknown;
}

function raw(target: { url: string }, opts: { method?: string; headers?: Record<string, string>; body?: unknown }): Promise<RawResponse> {
  const text = opts.body === undefined ? undefined : typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
  return new Promise((resolve, reject) => {
    const req = httpRequest(target.url, { method: opts.method ?? 'POST', headers: opts.headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body, json: () => JSON.parse(body) }));
    });
    req.on('error', reject);
    req.end(text);
  });
}

const MCP = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const initialize = (id: number | string = 1) => ({
  jsonrpc: '2.0',
  id,
  method: 'initialize',
  params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
});
const ping = (id: number | string) => ({ jsonrpc: '2.0', id, method: 'ping' });
const INITIALIZED = { jsonrpc: '2.0', method: 'notifications/initialized' };

/** initialize over raw HTTP; returns the headers a client then sends. */
async function rawSession(host: Host): Promise<Record<string, string>> {
  const init = await raw(host, { headers: MCP, body: initialize() });
  expect(init.status).toBe(200);
  const id = init.headers['mcp-session-id'];
  expect(typeof id).toBe('string');
  return { ...MCP, 'mcp-session-id': id as string, 'mcp-protocol-version': LATEST_PROTOCOL_VERSION };
}

const errorOf = (r: RawResponse) => (r.json() as { error: { code: number; message: string }; id: unknown }).error;

const hosts: Host[] = [];
const clients: Client[] = [];
async function host(mode: 'stateful' | 'stateless'): Promise<Host> {
  const h = await startHost(mode);
  hosts.push(h);
  return h;
}
async function sdkClient(h: Host): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const client = new Client({ name: 'sdk-client', version: '0' });
  const transport = new StreamableHTTPClientTransport(new URL(h.url));
  await client.connect(transport);
  clients.push(client);
  return { client, transport };
}

afterEach(async () => {
  await Promise.allSettled(clients.splice(0).map((c) => c.close()));
  for (const h of hosts.splice(0)) {
    h.release();
    await h.close();
  }
});

describe('the real SDK client', () => {
  it('initializes a stateful session, sends its id back on every call and gets whole answers', async () => {
    const h = await host('stateful');
    const { client, transport } = await sdkClient(h);
    expect(h.initialized).toHaveLength(1);
    expect(transport.sessionId).toBe(h.initialized[0]);
    expect(h.transport()?.sessionId).toBe(h.initialized[0]);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['big', 'hold', 'who']);
    const big = (await client.callTool({ name: 'big', arguments: {} })) as CallToolResult;
    expect(big.content).toEqual([{ type: 'text', text: BIG_TEXT }]);
    await expect(client.ping()).resolves.toEqual({});
  });

  it('hands the request headers to the tool (requestInfo), as the SDK transport does', async () => {
    const h = await host('stateful');
    const client = new Client({ name: 'sdk-client', version: '0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(h.url), { requestInit: { headers: { 'user-agent': 'probe-agent/1.0' } } }));
    clients.push(client);
    const who = (await client.callTool({ name: 'who', arguments: {} })) as CallToolResult;
    expect(who.content).toEqual([{ type: 'text', text: 'probe-agent/1.0' }]);
  });

  it('ends the session with DELETE (terminateSession); the id is then unknown (404)', async () => {
    const h = await host('stateful');
    const { client, transport } = await sdkClient(h);
    const id = transport.sessionId!;
    await transport.terminateSession();
    expect(h.closedSessions).toEqual([id]);
    expect(transport.sessionId).toBeUndefined();
    const after = await raw(h, { headers: { ...MCP, 'mcp-session-id': id }, body: ping(5) });
    expect(after.status).toBe(404);
    expect(errorOf(after).code).toBe(-32001);
    await expect(client.ping()).rejects.toThrow();
  });

  it('works statelessly: a fresh transport per request, no session id in any answer', async () => {
    const h = await host('stateless');
    const { client, transport } = await sdkClient(h);
    expect(transport.sessionId).toBeUndefined();
    const big = (await client.callTool({ name: 'big', arguments: {} })) as CallToolResult;
    expect(big.content).toEqual([{ type: 'text', text: BIG_TEXT }]);
    const res = await raw(h, { headers: MCP, body: ping(3) });
    expect(res.status).toBe(200);
    expect(res.headers['mcp-session-id']).toBeUndefined();
    expect(res.json()).toEqual({ jsonrpc: '2.0', id: 3, result: {} });
  });

  it('refuses to serve a second request on a stateless transport', async () => {
    const transport = new JsonHttpServerTransport();
    const server = createServer((req, res) => {
      void readBody(req).then((t) => transport.handleRequest(req, res, JSON.parse(t)).catch(() => res.writeHead(500).end()));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const target = { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp` };
    await mcpServer({ wait: Promise.resolve(), entered: () => undefined }).connect(transport);
    const first = await raw(target, { headers: MCP, body: ping(1) });
    expect(first.status).toBe(200);
    const second = await raw(target, { headers: MCP, body: ping(2) });
    expect(second.status).toBe(500);
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });
});

// The SDK's StreamableHTTPServerTransport (JSON mode) passes every test here but the ones marked
// `differs:`, the deliberate differences listed in json-http-transport.ts.
describe('transport rules over raw HTTP', () => {
  let h: Host;
  let headers: Record<string, string>;
  beforeEach(async () => {
    h = await host('stateful');
    headers = await rawSession(h);
  });

  it('differs: answers a call with one JSON body (with its length) naming the session, and the configured headers', async () => {
    const res = await raw(h, { headers, body: ping(7) });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.headers['mcp-session-id']).toBe(headers['mcp-session-id']);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(Number(res.headers['content-length'])).toBe(Buffer.byteLength(res.body));
    expect(res.json()).toEqual({ jsonrpc: '2.0', id: 7, result: {} });
  });

  it('406 unless Accept lists both application/json and text/event-stream', async () => {
    for (const accept of [undefined, 'application/json', 'text/event-stream', '*/*']) {
      const h2: Record<string, string> = { ...headers };
      if (accept === undefined) delete h2.accept;
      else h2.accept = accept;
      const res = await raw(h, { headers: h2, body: ping(1) });
      expect(res.status, String(accept)).toBe(406);
      expect(errorOf(res).code).toBe(-32000);
    }
  });

  it('415 unless the Content-Type is application/json (parsed, not a substring)', async () => {
    for (const type of ['text/plain', 'text/plain; a=application/json', 'application/jsonx']) {
      const res = await raw(h, { headers: { ...headers, 'content-type': type }, body: ping(1) });
      expect(res.status, type).toBe(415);
      expect(errorOf(res).code).toBe(-32000);
    }
    const withCharset = await raw(h, { headers: { ...headers, 'content-type': 'Application/JSON; charset=utf-8' }, body: ping(1) });
    expect(withCharset.status).toBe(200);
  });

  it('400 without the session id, 404 with an unknown one', async () => {
    const { 'mcp-session-id': _id, ...without } = headers;
    const missing = await raw(h, { headers: without, body: ping(1) });
    expect(missing.status).toBe(400);
    expect(errorOf(missing).message).toMatch(/Mcp-Session-Id header is required/);
    const unknown = await raw(h, { headers: { ...headers, 'mcp-session-id': 'not-this-session-0000' }, body: ping(1) });
    expect(unknown.status).toBe(404);
    expect(errorOf(unknown).code).toBe(-32001);
  });

  it('refuses the id of ANOTHER live session: a transport never trusts its router', async () => {
    const other = await host('stateful');
    const otherHeaders = await rawSession(other);
    expect(otherHeaders['mcp-session-id']).not.toBe(headers['mcp-session-id']);
    const crossed = await raw(h, { headers: { ...headers, 'mcp-session-id': otherHeaders['mcp-session-id']! }, body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'big', arguments: {} } } });
    expect(crossed.status).toBe(404);
    expect(crossed.body).not.toContain('lorem');
  });

  it('400 before initialize', async () => {
    const fresh = await host('stateful');
    const res = await raw(fresh, { headers: { ...MCP, 'mcp-session-id': 'anything-0000000000' }, body: ping(1) });
    expect(res.status).toBe(400);
    expect(errorOf(res).message).toMatch(/not initialized/);
  });

  it('400 on a second initialize, and on a batch that initializes with anything else', async () => {
    const again = await raw(h, { headers, body: initialize(9) });
    expect(again.status).toBe(400);
    expect(errorOf(again)).toMatchObject({ code: -32600, message: expect.stringMatching(/already initialized/) });
    const fresh = await host('stateful');
    const batch = await raw(fresh, { headers: MCP, body: [initialize(1), ping(2)] });
    expect(batch.status).toBe(400);
    expect(errorOf(batch)).toMatchObject({ code: -32600, message: expect.stringMatching(/Only one initialization/) });
    expect(fresh.initialized).toEqual([]);
  });

  it('validates Mcp-Protocol-Version when sent: supported ones pass, others are 400', async () => {
    const { 'mcp-protocol-version': _v, ...without } = headers;
    expect((await raw(h, { headers: without, body: ping(1) })).status).toBe(200);
    expect((await raw(h, { headers: { ...headers, 'mcp-protocol-version': '2025-03-26' }, body: ping(1) })).status).toBe(200);
    const bad = await raw(h, { headers: { ...headers, 'mcp-protocol-version': '1999-01-01' }, body: ping(1) });
    expect(bad.status).toBe(400);
    expect(errorOf(bad).message).toMatch(/Unsupported protocol version: 1999-01-01 \(supported versions: /);
  });

  it('differs, hostile: a huge protocol version header is refused without echoing it back', async () => {
    const huge = `2025-${'x'.repeat(8000)}`;
    const res = await raw(h, { headers: { ...headers, 'mcp-protocol-version': huge }, body: ping(1) });
    expect(res.status).toBe(400);
    expect(res.body.length).toBeLessThan(500);
    expect(res.body).not.toContain('x'.repeat(100));
  });

  it('202 with no body for notifications only', async () => {
    const res = await raw(h, { headers, body: INITIALIZED });
    expect(res.status).toBe(202);
    expect(res.body).toBe('');
    const batch = await raw(h, { headers, body: [INITIALIZED, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 99 } }] });
    expect(batch.status).toBe(202);
  });

  it('differs: answers a batch with an array of the answers to its requests (notifications get none)', async () => {
    const res = await raw(h, { headers, body: [ping('a'), INITIALIZED, { jsonrpc: '2.0', id: 'b', method: 'tools/list' }] });
    expect(res.status).toBe(200);
    const answers = res.json() as { id: string; result: { tools?: unknown[] } }[];
    expect(answers.map((a) => a.id)).toEqual(['a', 'b']);
    expect(answers[1]!.result.tools).toHaveLength(3);
    const one = await raw(h, { headers, body: [ping(3)] });
    expect(one.json()).toEqual([{ jsonrpc: '2.0', id: 3, result: {} }]);
  });

  it('400 for a batch over 100 messages, a message that is not JSON-RPC, or a missing body', async () => {
    const tooMany = await raw(h, { headers, body: Array.from({ length: 101 }, (_, i) => ping(i)) });
    expect(tooMany.status).toBe(400);
    expect(errorOf(tooMany).code).toBe(-32600);
    for (const body of [{ hello: 'world' }, [ping(1), { jsonrpc: '1.0', id: 2, method: 'ping' }], 42]) {
      const res = await raw(h, { headers, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(errorOf(res).code).toBe(-32700);
    }
    const empty = await raw(h, { headers });
    expect(empty.status).toBe(400);
  });

  it('differs, hostile: refuses a request id that is already waiting for its answer (it would take the other answer)', async () => {
    const twice = await raw(h, { headers, body: [ping(1), ping(1)] });
    expect(twice.status).toBe(400);
    expect(errorOf(twice).code).toBe(-32600);
    const holding = raw(h, { headers, body: { jsonrpc: '2.0', id: 'same', method: 'tools/call', params: { name: 'hold', arguments: {} } } });
    await h.held;
    const reuse = await raw(h, { headers, body: { jsonrpc: '2.0', id: 'same', method: 'tools/call', params: { name: 'big', arguments: {} } } });
    expect(reuse.status).toBe(400);
    expect(errorOf(reuse).code).toBe(-32600);
    expect(reuse.body).not.toContain('lorem');
    h.release();
    const held = await holding;
    expect(held.status).toBe(200);
    expect((held.json() as { result: CallToolResult }).result.content).toEqual([{ type: 'text', text: 'released' }]);
  });

  it('differs: answers a waiting request 404 when the session closes instead of leaving it hanging', async () => {
    const holding = raw(h, { headers, body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'hold', arguments: {} } } });
    await h.held;
    await h.transport()!.close();
    const res = await holding;
    expect(res.status).toBe(404);
    expect(errorOf(res).code).toBe(-32001);
  });

  it('differs: 405 for GET (no SSE stream) and other methods', async () => {
    for (const method of ['GET', 'PUT']) {
      const res = await raw(h, { method, headers: { ...headers, accept: 'text/event-stream' } });
      expect(res.status, method).toBe(405);
      expect(res.headers.allow).toBe('POST, DELETE');
    }
  });

  it('DELETE needs this session id (400 without, 404 with another), then ends the session', async () => {
    const { 'mcp-session-id': id, ...without } = headers;
    expect((await raw(h, { method: 'DELETE', headers: without })).status).toBe(400);
    expect((await raw(h, { method: 'DELETE', headers: { ...headers, 'mcp-session-id': 'other-session-000000' } })).status).toBe(404);
    expect(h.closedSessions).toEqual([]);
    expect((await raw(h, { method: 'DELETE', headers })).status).toBe(200);
    expect(h.closedSessions).toEqual([id]);
    expect((await raw(h, { headers, body: ping(1) })).status).toBe(404);
  });
});
