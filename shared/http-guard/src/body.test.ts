// Guards: a request body is kept only up to its cap — an over-cap body is read to its end and discarded (bounded) so the client sees the 413 instead of a reset, one declared over the drain bound is refused unread, and a client that goes away is reported, not waited for.
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readLimitedBody, type BodyResult } from './body.js';

const CAP = 1024;
const DRAIN = 8 * 1024 * 1024;
let server: Server;
let port: number;
const results: Array<(r: BodyResult) => void> = [];
const nextResult = () => new Promise<BodyResult>((resolve) => results.push(resolve));

beforeAll(async () => {
  server = createServer((req, res) => {
    void readLimitedBody(req, CAP, { drainBytes: DRAIN, drainMs: 5_000 }).then((result) => {
      results.shift()?.(result);
      if (result.ok) res.end(`${result.text.length}`);
      else res.writeHead(413, { Connection: 'close' }).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

// A refused upload may see its connection closed before it reads the 413; the callers
// that expect a refusal count that as one and check what readLimitedBody reported.
function post(chunks: string[], headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method: 'POST', path: '/', headers }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    for (const c of chunks) req.write(c);
    req.end();
  });
}

describe('readLimitedBody', () => {
  it('returns a body up to the cap, as UTF-8 text', async () => {
    const result = nextResult();
    expect(await post(['héllo ', 'x'.repeat(CAP - 8)])).toBe(200);
    expect(await result).toEqual({ ok: true, text: `héllo ${'x'.repeat(CAP - 8)}` });
  });

  it('refuses a declared Content-Length over the drain bound before reading', async () => {
    const result = nextResult();
    const status = await post([], { 'Content-Length': String(DRAIN + 1) }).catch(() => 413);
    expect(status).toBe(413);
    expect(await result).toEqual({ ok: false, reason: 'too_large' });
  });

  it('cuts a chunked body off once it passes the cap', async () => {
    const result = nextResult();
    const status = await post(['y'.repeat(CAP), 'y']).catch(() => 413);
    expect(status).toBe(413);
    expect(await result).toEqual({ ok: false, reason: 'too_large' });
  });

  it('answers an over-cap body the client declared with a 413 the client reads, never a reset', async () => {
    // fetch (undici), as MCP clients send: unlike node:http's client it reports a
    // connection closed under its upload as a failure, not the response it got.
    const result = nextResult();
    const res = await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', body: 'z'.repeat(4 * 1024 * 1024) });
    expect(res.status).toBe(413);
    expect(await result).toEqual({ ok: false, reason: 'too_large' });
  });

  it('reports a client that goes away mid-body', async () => {
    const result = nextResult();
    const req = request({ host: '127.0.0.1', port, method: 'POST', path: '/', headers: { 'Content-Length': '100' } });
    req.on('error', () => {});
    req.write('partial');
    setTimeout(() => req.destroy(), 50);
    expect(await result).toEqual({ ok: false, reason: 'aborted' });
  });
});
