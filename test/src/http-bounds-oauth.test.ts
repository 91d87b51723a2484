// Guards that the gateway and the observer stay bounded under abuse: a slow-header (Slowloris) connection is closed (the connection cap itself: shared/http-guard/src/limits.test.ts), and open client registration is throttled per source address, so one source cannot lock out another.
import { connect, type Socket } from 'node:net';
import { createGatewayLogger, startGatewayHttp, type RunningGatewayHttp } from '@terminal-mcp/gateway';
import { createObserverLogger, startObserverHttp, type RunningObserverHttp } from '@terminal-mcp/observer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBrokerProcess, type BrokerProcess } from './helpers/broker-process.js';
import { startTmuxServer, type TmuxTestServer } from './helpers/tmux-server.js';

/** Short but finite bounds; the test waits for their effect with a generous deadline, so
 * it does not depend on the machine's speed. Node's defaults (60 s for headers) would
 * keep the connection open past that deadline. */
const LIMITS = { headersTimeoutMs: 1_000, requestTimeoutMs: 2_000, checkIntervalMs: 250 };
const DEADLINE_MS = 30_000;

let tmux: TmuxTestServer;
let broker: BrokerProcess;
let gw: RunningGatewayHttp;
let obs: RunningObserverHttp;
const sockets: Socket[] = [];

function open(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = connect(port, '127.0.0.1', () => resolve(s));
    s.on('error', () => {});
    s.once('error', reject);
    sockets.push(s);
  });
}

/** Resolves with what the server sent when it closed the connection, or undefined when it
 * is still open at the deadline. */
function closedBy(socket: Socket, ms = DEADLINE_MS): Promise<string | undefined> {
  return new Promise((resolve) => {
    let received = '';
    socket.setEncoding('utf8');
    socket.on('data', (c: string) => (received += c));
    const timer = setTimeout(() => resolve(undefined), ms);
    socket.once('close', () => {
      clearTimeout(timer);
      resolve(received);
    });
  });
}

/** Starts a request and then sends one more header byte every 300 ms, never finishing. */
async function slowHeaders(port: number): Promise<{ socket: Socket; stop: () => void }> {
  const socket = await open(port);
  socket.write(`GET /health/live HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nX-Slow: `);
  const drip = setInterval(() => socket.writable && socket.write('a'), 300);
  socket.once('close', () => clearInterval(drip));
  return { socket, stop: () => clearInterval(drip) };
}

beforeAll(async () => {
  tmux = await startTmuxServer();
  broker = await startBrokerProcess({ tmuxSocket: tmux.socketName, config: { log_level: 'warn' } });
  gw = await startGatewayHttp({ port: 0, env: broker.env, log: createGatewayLogger('silent'), httpLimits: LIMITS, allowOpen: true });
  obs = await startObserverHttp({
    port: 0,
    env: broker.env,
    log: createObserverLogger('silent'),
    httpLimits: LIMITS,
    clientIpHeader: 'x-test-client-ip',
    registrationLimits: { perSource: 2 },
  });
}, 60_000);

afterAll(async () => {
  for (const s of sockets) s.destroy();
  await gw?.close();
  await obs?.close();
  await broker?.stop();
  await tmux?.kill();
});

describe.each([
  ['gateway', () => gw.port],
  ['observer', () => obs.port],
])('the %s under abuse', (_name, port) => {
  it('closes a connection whose headers never finish, and keeps serving', { timeout: 180_000 }, async () => {
    const { socket, stop } = await slowHeaders(port());
    const sent = await closedBy(socket);
    stop();
    expect(sent, 'the slow connection was still open at the deadline').toBeDefined();
    expect(sent).toMatch(/^(HTTP\/1\.1 408|$)/);
    const res = await fetch(`http://127.0.0.1:${port()}/health/live`);
    expect(res.status).toBe(200);
  });
});

describe('open client registration', () => {
  const registerFrom = (source: string) =>
    fetch(`${obs.publicUrl}/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-test-client-ip': source },
      body: JSON.stringify({ redirect_uris: ['http://127.0.0.1:9/cb'], token_endpoint_auth_method: 'none' }),
    });

  it('is throttled per source: one source over its share does not lock out another', async () => {
    expect((await registerFrom('198.51.100.7')).status).toBe(201);
    expect((await registerFrom('198.51.100.7')).status).toBe(201);
    const throttled = await registerFrom('198.51.100.7');
    expect(throttled.status).toBe(429);
    expect(throttled.headers.get('retry-after')).toMatch(/^\d+$/);
    expect((await registerFrom('203.0.113.20')).status).toBe(201);
  });
});
