// The notice outbox (the broker's half of delivery, over a real notify.db): a notice goes to the channels whose filter and minute budget take it, a supervisor event to the supervisor webhook in order; a claim hands each delivery out once and a long poll wakes on a new one; a report for a delivery not claimed is refused; a backlog over its cap drops the oldest (DROPPED); a restarted notifier ends what the last one claimed as UNKNOWN; a channel gone from the configuration is FAILED, not sent.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Notice, SupervisorEvent } from '@terminal-mcp/contract';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { configSchema } from '../config/schema.js';
import { openStoreSet, type StoreSet } from '../effects/store/store-set.js';
import { createNoticeOutbox, MAX_PENDING_PER_TARGET, SUPERVISOR_WEBHOOK, type NoticeOutbox } from './notice-outbox.js';

let root: string;
let stores: StoreSet;
let clock: number;

const config = configSchema.parse({
  notifications: {
    channels: [
      { name: 'hook', url: 'http://127.0.0.1:9/hook', per_minute: 4 },
      { name: 'phone', url: 'https://push.example/topic', format: 'ntfy', kinds: ['waiting_for_human'], min_level: 'urgent' },
    ],
  },
  supervisor: { notify: { url: 'http://127.0.0.1:9/events', retries: 3, timeout_seconds: 7 } },
});
const outboxOf = (c = config): NoticeOutbox => createNoticeOutbox({ config: c, store: stores.notify, log: pino({ level: 'silent' }), now: () => clock });
let nextId = 1;
const notice = (over: Partial<Notice> = {}): Notice => ({ id: nextId++, at: new Date(0).toISOString(), kind: 'approval_needed', level: 'warning', session: 'agent-a', message: 'approve input 3', from: 'broker:review', ...over });
const event = (id: number): SupervisorEvent => ({
  schema_version: 1, id, timestamp: new Date(0).toISOString(), watch_key: 'session:agent-a', kind: 'session', target: 'agent-a', previous_state: 'RUNNING', state: 'WAITING_INPUT',
  event_type: 'attention_required', reason: 'prompt on the last line', output_preview: 'Continue? [y/N]', output_hash: 'h', iteration_count: 1, acknowledged_at: null, metadata: {},
});
const rows = () => stores.db('notify').prepare('SELECT channel, outcome, reason FROM notice_delivery ORDER BY id').all() as { channel: string; outcome: string; reason: string | null }[];

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'tmcp-outbox-'));
  stores = openStoreSet(root);
  clock = 1_000_000;
});
afterEach(() => {
  stores.close();
  rmSync(root, { recursive: true, force: true });
});

describe('the notice outbox', () => {
  it('queues a notice for each channel that takes it, with the request built here, and hands each out once', async () => {
    const outbox = outboxOf();
    outbox.enqueueNotice(notice({ kind: 'waiting_for_human', level: 'urgent', message: 'type the passphrase', from: 'gateway:a' }));
    const claimed = await outbox.claim(20, 0);
    expect(claimed.map((d) => [d.target, d.url, d.retries, d.timeout_ms])).toEqual([
      ['hook', 'http://127.0.0.1:9/hook', 0, 5000],
      ['phone', 'https://push.example/topic', 0, 5000],
    ]);
    expect(JSON.parse(claimed[0]!.body)).toMatchObject({ source: 'terminal-mcp', notice: { kind: 'waiting_for_human', message: 'type the passphrase' } });
    expect(claimed[1]).toMatchObject({ body: 'type the passphrase', headers: { title: 'Terminal MCP: waiting for human in agent-a', priority: '5' } });
    expect(await outbox.claim(20, 0)).toEqual([]);
    expect(outbox.report({ id: claimed[0]!.id, outcome: 'SENT', http_status: 200, reason: null, attempts: 1 })).toBe(true);
    // The same report again, or one for an id never claimed, records nothing.
    expect(outbox.report({ id: claimed[0]!.id, outcome: 'FAILED', http_status: null, reason: 'forged', attempts: 1 })).toBe(false);
    expect(outbox.report({ id: 999, outcome: 'SENT', http_status: 200, reason: null, attempts: 1 })).toBe(false);
    expect(rows()).toEqual([{ channel: 'hook', outcome: 'SENT', reason: null }]);
  });

  it('spends the channel budget when the notice is raised, whether or not a notifier runs (clients at most half of it)', async () => {
    const outbox = outboxOf();
    for (let i = 0; i < 3; i++) outbox.enqueueNotice(notice({ kind: 'agent_message', level: 'info', message: `from a client ${i}`, from: 'gateway:a' }));
    outbox.enqueueNotice(notice());
    outbox.enqueueNotice(notice({ message: 'the fourth of the minute' }));
    outbox.enqueueNotice(notice({ message: 'over the budget' }));
    expect(rows().map((r) => r.outcome)).toEqual(['RATE_LIMITED', 'RATE_LIMITED']);
    expect((await outbox.claim(20, 0)).map((d) => (JSON.parse(d.body) as { notice: { message: string } }).notice.message)).toEqual(['from a client 0', 'from a client 1', 'approve input 3', 'the fourth of the minute']);
    clock += 60_000;
    outbox.enqueueNotice(notice({ message: 'next minute' }));
    expect(await outbox.claim(20, 0)).toHaveLength(1);
  });

  it('queues supervisor events for the webhook in order, with its retries and timeout', async () => {
    const outbox = outboxOf();
    for (const id of [1, 2, 3]) outbox.enqueueSupervisorEvent(event(id));
    const claimed = await outbox.claim(20, 0);
    expect(claimed.map((d) => [d.target, (JSON.parse(d.body) as SupervisorEvent).id, d.retries, d.timeout_ms])).toEqual([
      [SUPERVISOR_WEBHOOK, 1, 3, 7000],
      [SUPERVISOR_WEBHOOK, 2, 3, 7000],
      [SUPERVISOR_WEBHOOK, 3, 3, 7000],
    ]);
    // No webhook configured: nothing is queued.
    const none = outboxOf(configSchema.parse({}));
    none.enqueueSupervisorEvent(event(4));
    expect(await none.claim(20, 0)).toEqual([]);
  });

  it('wakes a waiting claim when a delivery is queued, and a stop answers it at once', async () => {
    const outbox = outboxOf();
    const waiting = outbox.claim(20, 20_000);
    outbox.enqueueNotice(notice());
    expect((await waiting).map((d) => d.target)).toEqual(['hook']);
    const idle = outbox.claim(20, 20_000);
    expect(outbox.notifierState()).toEqual({ connected: true, waiting: 1 });
    outbox.close();
    expect(await idle).toEqual([]);
  });

  it('keeps at most MAX_PENDING_PER_TARGET waiting per channel, dropping the oldest as DROPPED', async () => {
    const outbox = outboxOf();
    for (let i = 0; i <= MAX_PENDING_PER_TARGET; i++) outbox.enqueueSupervisorEvent(event(i));
    expect(rows()).toEqual([{ channel: SUPERVISOR_WEBHOOK, outcome: 'DROPPED', reason: `more than ${MAX_PENDING_PER_TARGET} deliveries waited for the notifier` }]);
    const claimed = await outbox.claim(20, 0);
    expect((JSON.parse(claimed[0]!.body) as SupervisorEvent).id).toBe(1);
  });

  it('ends what a stopped notifier claimed as UNKNOWN when one starts again, and never hands it out twice', async () => {
    const outbox = outboxOf();
    outbox.enqueueNotice(notice());
    expect(await outbox.claim(20, 0)).toHaveLength(1);
    expect(outbox.notifierStarted()).toBe(1);
    expect(rows()).toEqual([{ channel: 'hook', outcome: 'UNKNOWN', reason: 'the notifier stopped before reporting it' }]);
    expect(await outbox.claim(20, 0)).toEqual([]);
  });

  it('fails a delivery whose channel is no longer configured instead of sending it (a broker restarted with another config)', async () => {
    outboxOf().enqueueNotice(notice());
    const later = outboxOf(configSchema.parse({}));
    expect(await later.claim(20, 0)).toEqual([]);
    expect(rows()).toEqual([{ channel: 'hook', outcome: 'FAILED', reason: 'the channel is no longer configured' }]);
  });

  it('refuses a channel named like the supervisor webhook', () => {
    expect(configSchema.safeParse({ notifications: { channels: [{ name: SUPERVISOR_WEBHOOK, url: 'http://127.0.0.1:9/x' }] } }).success).toBe(false);
  });
});
