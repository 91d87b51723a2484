// The supervisor webhook posts each event as plain JSON, retries a failed delivery, and gives up on a server that never answers within its timeout without blocking later events.
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { SupervisorEvent } from '@terminal-mcp/contract';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createWebhookNotifier } from './webhook.js';

const event = (id: number): SupervisorEvent => ({
  schema_version: 1,
  id,
  timestamp: new Date(0).toISOString(),
  watch_key: 'session:agent-a',
  kind: 'session',
  target: 'agent-a',
  previous_state: 'RUNNING',
  state: 'WAITING_INPUT',
  event_type: 'attention_required',
  reason: 'prompt "[y/N]" on the last line',
  output_preview: 'Continue? [y/N]',
  output_hash: 'h',
  iteration_count: 1,
  acknowledged_at: null,
  metadata: {},
});

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

async function serve(handler: (n: number, req: IncomingMessage) => Promise<number | null>): Promise<string> {
  let n = 0;
  const server = createServer((req, res) => {
    void handler(++n, req).then((status) => {
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

describe('createWebhookNotifier', () => {
  it('posts the event as JSON and retries after a server error', async () => {
    const received: unknown[] = [];
    const url = await serve(async (n, req) => {
      received.push({ n, type: req.headers['content-type'], body: JSON.parse(await body(req)) as unknown });
      return n === 1 ? 503 : 204;
    });
    const warn = vi.fn();
    createWebhookNotifier({ url, timeoutSeconds: 5, retries: 2, log: { warn } })(event(7));
    await vi.waitFor(() => expect(received).toHaveLength(2), { timeout: 60_000 });
    expect(received[1]).toMatchObject({ type: 'application/json', body: { schema_version: 1, id: 7, event_type: 'attention_required' } });
    expect(warn).not.toHaveBeenCalled();
  });

  it('gives up on a server that never answers, logs it, and still delivers the next event', async () => {
    const seen: number[] = [];
    const url = await serve(async (_n, req) => {
      const e = JSON.parse(await body(req)) as SupervisorEvent;
      seen.push(e.id);
      return e.id === 1 ? null : 200;
    });
    const warn = vi.fn();
    const notify = createWebhookNotifier({ url, timeoutSeconds: 1, retries: 0, log: { warn } });
    notify(event(1));
    notify(event(2));
    await vi.waitFor(() => expect(seen).toEqual([1, 2]), { timeout: 60_000 });
    await vi.waitFor(() => expect(warn).toHaveBeenCalledTimes(1), { timeout: 60_000 });
  });
});
