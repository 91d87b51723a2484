// A delivery is one plain POST of the body the broker built: retried after a server error or a 429 (the supervisor webhook's retries), never after another 4xx, bounded by its timeout on a server that never answers, and one at a time per target without a hung target blocking another.
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { PendingDelivery } from '@terminal-mcp/contract';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { sendDelivery } from './send-delivery.js';
import { createTargetQueues } from './target-queues.js';

const body = (req: IncomingMessage) =>
  new Promise<string>((resolve) => {
    let s = '';
    req.on('data', (d: Buffer) => (s += d.toString()));
    req.on('end', () => resolve(s));
  });

const servers: { close(): void }[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) s.close();
});

/** A local receiver: `handler` answers each request with a status, or null for never. */
async function serve(handler: (n: number, req: IncomingMessage, text: string) => number | null): Promise<string> {
  let n = 0;
  const server = createServer((req, res) => {
    void body(req).then((text) => {
      const status = handler(++n, req, text);
      if (status !== null) res.writeHead(status).end();
    });
  });
  servers.push({
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
}

const delivery = (url: string, over: Partial<PendingDelivery> = {}): PendingDelivery => ({
  id: 7,
  target: 'supervisor.notify',
  url,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ schema_version: 1, id: 7, event_type: 'attention_required' }),
  timeout_ms: 5_000,
  retries: 2,
  ...over,
});

describe('sendDelivery', () => {
  it('posts the body as given and retries after a server error, reporting SENT with the attempts it took', async () => {
    const received: { n: number; type: string | undefined; body: unknown }[] = [];
    const url = await serve((n, req, text) => {
      received.push({ n, type: req.headers['content-type'], body: JSON.parse(text) as unknown });
      return n === 1 ? 503 : 204;
    });
    expect(await sendDelivery(delivery(url))).toEqual({ id: 7, outcome: 'SENT', http_status: 204, reason: null, attempts: 2 });
    expect(received).toHaveLength(2);
    expect(received[1]).toMatchObject({ type: 'application/json', body: { schema_version: 1, id: 7, event_type: 'attention_required' } });
  });

  it('does not retry a 4xx other than 429, and reports it FAILED with the status', async () => {
    let calls = 0;
    const url = await serve(() => (++calls, 404));
    expect(await sendDelivery(delivery(url))).toEqual({ id: 7, outcome: 'FAILED', http_status: 404, reason: 'HTTP 404', attempts: 1 });
    expect(calls).toBe(1);
  });

  it('gives up on a server that never answers (timed out)', async () => {
    const url = await serve(() => null);
    expect(await sendDelivery(delivery(url, { timeout_ms: 1_000, retries: 0 }))).toEqual({ id: 7, outcome: 'FAILED', http_status: null, reason: 'timed out', attempts: 1 });
  });

  it('does not hold up another target behind one whose receiver has not answered', async () => {
    const url = await serve(() => null);
    const fastUrl = await serve(() => 200);
    const reports: string[] = [];
    const queues = createTargetQueues(async (d) => void reports.push(`${d.target}:${(await sendDelivery(d)).outcome}`));
    queues.push(delivery(url, { id: 1, target: 'slow', body: 'hang', timeout_ms: 60_000, retries: 0 }));
    queues.push(delivery(fastUrl, { id: 2, target: 'fast', body: 'ok', retries: 0 }));
    await vi.waitFor(() => expect(reports).toEqual(['fast:SENT']), { timeout: 30_000 });
    // The hanging receiver goes away: the slow delivery ends, FAILED.
    for (const s of servers.splice(0)) s.close();
    await queues.idle();
    expect(reports).toEqual(['fast:SENT', 'slow:FAILED']);
  });

  it("sends one target's deliveries one at a time, in order", async () => {
    const order: string[] = [];
    const url = await serve((_n, _req, text) => (order.push(text), 200));
    const queues = createTargetQueues(async (d) => void (await sendDelivery(d)));
    for (const id of [1, 2, 3, 4]) queues.push(delivery(url, { id, target: 'hook', body: `event ${id}`, retries: 0 }));
    await queues.idle();
    expect(order).toEqual(['event 1', 'event 2', 'event 3', 'event 4']);
  });

  it("refuses a redirect: a channel URL is the operator's, not whatever it points to", async () => {
    let calls = 0;
    const url = await serve(() => (++calls, 302));
    expect(await sendDelivery(delivery(url, { retries: 0 }))).toMatchObject({ outcome: 'FAILED' });
    expect(calls).toBe(1);
  });
});
