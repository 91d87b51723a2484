/**
 * The notice outbox: the broker's half of notification delivery. The broker opens no
 * network connection (docs/architecture.md, "The notifier"): each notice (already
 * redacted and de-duplicated by attention/center.ts) becomes one pending delivery per
 * configured channel whose filter takes it and whose minute budget has room
 * (attention/channel-budget.ts; over it: a RATE_LIMITED row at once), and each supervisor
 * event one for `supervisor.notify.url`. They wait in notify.db until the notifier
 * (services/notifier, over notifier.sock) claims them, and stay there while it is down:
 * it sends them when it returns, each once. At most MAX_PENDING_PER_TARGET wait per
 * channel; older ones are dropped (recorded DROPPED). What the notifier claimed and never
 * reported is recorded UNKNOWN when a notifier starts again, never sent twice.
 */
import type { DeliveryReport, Notice, PendingDelivery, SupervisorEvent } from '@terminal-mcp/contract';
import type { Logger } from 'pino';
import type { BrokerConfig } from '../config/schema.js';
import type { NotifyStore, OutboxEntry } from '../effects/store/notify-store.js';
import { createChannelBudget } from './channel-budget.js';
import { channelRequest, channelTakes } from './channel-request.js';

/** The supervisor webhook's target name (reserved: config/schema.ts refuses a channel of
 * this name). */
export const SUPERVISOR_WEBHOOK = 'supervisor.notify';
/** Deliveries waiting per channel at most (the supervisor webhook's old queue length). */
export const MAX_PENDING_PER_TARGET = 100;

export interface NoticeOutbox {
  /** Queues `notice` for every channel that takes it (and has budget left this minute). */
  enqueueNotice(notice: Notice): void;
  /** Queues a supervisor event for the supervisor webhook, when one is configured. */
  enqueueSupervisorEvent(event: SupervisorEvent): void;
  /** Claims up to `max` pending deliveries, waiting up to `waitMs` for one to appear. */
  claim(max: number, waitMs: number, signal?: AbortSignal): Promise<PendingDelivery[]>;
  /** Ends a claimed delivery with the notifier's report; false when it was not claimed. */
  report(report: DeliveryReport): boolean;
  /** A notifier (re)started: what an earlier one claimed and did not report is UNKNOWN. */
  notifierStarted(): number;
  /** Whether a notifier is connected (a claim waits now, or one ended moments ago: it
   * claims again at once) and how many deliveries wait for it. */
  notifierState(): { connected: boolean; waiting: number };
  /** Wakes every waiting claim (the broker stops). */
  close(): void;
}

/** A notifier claims again right after a claim ends; longer than this without a waiting
 * claim means none is connected. */
const CLAIM_GAP_MS = 5_000;

export function createNoticeOutbox(opts: {
  config: Pick<BrokerConfig, 'notifications' | 'supervisor'>;
  store: NotifyStore;
  log: Pick<Logger, 'warn' | 'info'>;
  now?: () => number;
}): NoticeOutbox {
  const now = opts.now ?? Date.now;
  const { store, log } = opts;
  const channels = opts.config.notifications.channels;
  const webhook = opts.config.supervisor.notify;
  const budget = createChannelBudget(now);
  const waiters = new Set<() => void>();
  let lastClaimAt = Number.NEGATIVE_INFINITY;
  const wake = () => {
    for (const w of [...waiters]) w();
  };

  // A notice must never fail whoever raised it: a store error is logged and the notice
  // stays on the dashboard.
  const guarded = (channel: string, work: () => void) => {
    try {
      work();
    } catch (err) {
      log.warn({ event: 'notify.audit_failed', channel, err: (err as Error).message }, 'a notice delivery could not be queued or recorded');
    }
  };

  const enqueue = (entry: Omit<OutboxEntry, 'id' | 'at'>) =>
    guarded(entry.target, () => {
      while (store.pendingCount(entry.target) >= MAX_PENDING_PER_TARGET) {
        store.dropOldestPending(entry.target, now(), `more than ${MAX_PENDING_PER_TARGET} deliveries waited for the notifier`);
      }
      store.enqueue({ ...entry, at: now() });
      wake();
    });

  const requestOf = (entry: OutboxEntry): PendingDelivery | string => {
    if (entry.target === SUPERVISOR_WEBHOOK) {
      if (webhook.url === undefined) return 'supervisor.notify.url is no longer configured';
      return { id: entry.id, target: entry.target, url: webhook.url, headers: entry.headers, body: entry.body, timeout_ms: webhook.timeout_seconds * 1000, retries: webhook.retries };
    }
    const channel = channels.find((c) => c.name === entry.target);
    if (channel === undefined) return 'the channel is no longer configured';
    return { id: entry.id, target: entry.target, url: channel.url, headers: entry.headers, body: entry.body, timeout_ms: channel.timeout_seconds * 1000, retries: 0 };
  };

  const claimNow = (max: number): PendingDelivery[] => {
    const out: PendingDelivery[] = [];
    for (const entry of store.claim(max, now())) {
      const request = requestOf(entry);
      if (typeof request === 'string') store.settle(entry.id, { at: now(), outcome: 'FAILED', httpStatus: null, reason: request, attempts: 0 });
      else out.push(request);
    }
    return out;
  };

  return {
    enqueueNotice(notice) {
      for (const channel of channels) {
        if (!channelTakes(channel, notice)) continue;
        const ref = { noticeId: notice.id, kind: notice.kind, session: notice.session, raisedBy: notice.from };
        if (!budget.take(channel, notice)) {
          guarded(channel.name, () => store.recordDelivery({ ...ref, at: now(), channel: channel.name, outcome: 'RATE_LIMITED', httpStatus: null }));
          continue;
        }
        enqueue({ ...ref, target: channel.name, ...channelRequest(channel, notice) });
      }
    },
    enqueueSupervisorEvent(event) {
      if (webhook.url === undefined) return;
      enqueue({
        target: SUPERVISOR_WEBHOOK,
        noticeId: event.id,
        kind: event.event_type,
        session: event.kind === 'session' ? event.target : null,
        raisedBy: `supervisor:${event.watch_key}`.slice(0, 120),
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(event),
      });
    },
    async claim(max, waitMs, signal) {
      lastClaimAt = now();
      const first = claimNow(max);
      if (first.length > 0 || waitMs <= 0 || signal?.aborted) return first;
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          waiters.delete(done);
          signal?.removeEventListener('abort', done);
          resolve();
        };
        const timer = setTimeout(done, waitMs);
        waiters.add(done);
        signal?.addEventListener('abort', done, { once: true });
      });
      lastClaimAt = now();
      return signal?.aborted ? [] : claimNow(max);
    },
    report(r) {
      const settled = store.settle(r.id, { at: now(), outcome: r.outcome, httpStatus: r.http_status, reason: r.reason, attempts: r.attempts });
      if (settled && r.outcome === 'FAILED') log.warn({ event: 'notify.delivery_failed', delivery: r.id, status: r.http_status, reason: r.reason, attempts: r.attempts }, 'a notice was not delivered');
      return settled;
    },
    notifierStarted() {
      const abandoned = store.abandonClaimed(now());
      if (abandoned > 0) log.warn({ event: 'notify.delivery_unknown', deliveries: abandoned }, 'the notifier stopped before reporting these deliveries; they are not sent again');
      return abandoned;
    },
    notifierState: () => ({ connected: waiters.size > 0 || now() - lastClaimAt < CLAIM_GAP_MS, waiting: store.waitingCount() }),
    close: wake,
  };
}
