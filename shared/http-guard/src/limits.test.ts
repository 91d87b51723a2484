// Guards the connection cap of every HTTP edge (createBoundedServer): slow-header connections filling the cap do not lock a new client out (the oldest one still sending headers is shed), and only when every open connection has sent its headers is a new one refused.
import { request, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createBoundedServer } from './limits.js';

/** Long timeouts: the slow connections stay open for the whole test unless shed. */
const LIMITS = { headersTimeoutMs: 60_000, requestTimeoutMs: 120_000, maxConnections: 4 };

let server: Server;
const sockets: Socket[] = [];

afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

async function start(hold = false): Promise<number> {
  server = createBoundedServer(LIMITS);
  // `hold`: answer after a long time, so a connection with a request in flight stays open.
  server.on('request', (_req, res) => (hold ? setTimeout(() => res.end('late'), 30_000).unref() : res.end('ok')));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return (server.address() as AddressInfo).port;
}

function open(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = connect(port, '127.0.0.1', () => resolve(s));
    s.on('error', () => {});
    s.once('error', reject);
    sockets.push(s);
  });
}

const closed = (s: Socket) => new Promise<boolean>((r) => (s.destroyed ? r(true) : s.once('close', () => r(true))));

function get(port: number): Promise<{ status: number } | { error: string }> {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path: '/', agent: false }, (res) => {
      res.resume();
      resolve({ status: res.statusCode ?? 0 });
    });
    req.on('error', (err) => resolve({ error: (err as NodeJS.ErrnoException).code ?? err.message }));
    req.setTimeout(20_000, () => req.destroy(new Error('timeout')));
    req.end();
  });
}

describe('the connection cap', () => {
  it('sheds the oldest slow-header connection for a new client instead of refusing it', async () => {
    const port = await start();
    const slow: Socket[] = [];
    for (let i = 0; i < LIMITS.maxConnections; i++) {
      const s = await open(port);
      s.write(`GET / HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nX-Slow: a`);
      slow.push(s);
    }
    expect(await get(port)).toEqual({ status: 200 });
    expect(await closed(slow[0]!)).toBe(true);
    expect(slow.slice(1).every((s) => !s.destroyed)).toBe(true);
  });

  it('still refuses a connection over the cap when every open one has sent its request', async () => {
    const port = await start(true);
    for (let i = 0; i < LIMITS.maxConnections; i++) {
      const s = await open(port);
      s.write(`GET / HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
    }
    // Give the server time to read each request's headers.
    await new Promise((r) => setTimeout(r, 300));
    const extra = await open(port);
    expect(await closed(extra)).toBe(true);
  });
});
