/**
 * The notifier's loop: say it started (the broker ends as UNKNOWN whatever an earlier
 * notifier claimed and never reported), then claim the deliveries the broker queued (a
 * long poll on notifier.sock), send each (send-delivery.ts; one at a time per target,
 * target-queues.ts) and report how it ended. A broker that is down or restarting is
 * waited for: the deliveries stay queued in the broker meanwhile. The stop aborts the
 * waiting claim and gives the sends in flight a bounded time; one cut short stays claimed
 * and becomes UNKNOWN at the next start, never sent twice.
 */
import { describeBrokerFailure, type BrokerClient } from '@terminal-mcp/broker-client';
import { NOTIFIER_WAIT_MAX_MS, type DeliveryReport, type PendingDelivery } from '@terminal-mcp/contract';
import type { Logger } from 'pino';
import { sendDelivery } from './send-delivery.js';
import { createTargetQueues } from './target-queues.js';

/** How long the stop waits for sends in flight (the process stop is bounded at 4 s). */
export const SEND_SETTLE_MS = 2_000;
const BROKER_RETRY_MIN_MS = 250;
const BROKER_RETRY_MAX_MS = 5_000;

export interface RunningNotifier {
  /** Resolves once the broker has heard this notifier start. */
  readonly ready: Promise<void>;
  close(): Promise<void>;
}

export function startNotifier(opts: { client: BrokerClient<'notifier'>; log: Pick<Logger, 'info' | 'warn' | 'debug'>; waitMs?: number }): RunningNotifier {
  const { log } = opts;
  const broker = opts.client;
  const stopping = new AbortController();
  const waitMs = opts.waitMs ?? NOTIFIER_WAIT_MAX_MS;

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      stopping.signal.addEventListener('abort', () => {
        clearTimeout(timer);
        resolve();
      }, { once: true });
    });

  /** Runs `call` until the broker answers it, or the notifier stops (undefined). */
  async function untilAnswered<T>(what: string, call: () => Promise<T>): Promise<T | undefined> {
    let pauseMs = BROKER_RETRY_MIN_MS;
    while (!stopping.signal.aborted) {
      try {
        return await call();
      } catch (err) {
        if (stopping.signal.aborted) return undefined;
        const failure = describeBrokerFailure(err);
        log.warn({ event: 'notifier.broker_call_failed', call: what, code: failure.code }, 'the broker did not answer; trying again');
        await sleep(pauseMs);
        pauseMs = Math.min(pauseMs * 2, BROKER_RETRY_MAX_MS);
      }
    }
    return undefined;
  }

  const report = async (r: DeliveryReport, target: string) => {
    log.info({ event: 'notifier.delivery', delivery: r.id, target, outcome: r.outcome, status: r.http_status, reason: r.reason, attempts: r.attempts }, r.outcome === 'SENT' ? 'delivered' : 'not delivered');
    // A report lost to a stop leaves the row claimed: UNKNOWN at the next start.
    await untilAnswered('report', () => broker.notifier.report.mutate(r));
  };

  const queues = createTargetQueues(async (d: PendingDelivery) => report(await sendDelivery(d, { signal: stopping.signal }), d.target));

  const ready = untilAnswered('started', () => broker.notifier.started.mutate({})).then((answer) => {
    if (answer !== undefined && answer.abandoned > 0) log.warn({ event: 'notifier.abandoned', deliveries: answer.abandoned }, 'deliveries the previous notifier claimed and did not report are recorded UNKNOWN, not sent again');
    if (answer !== undefined) log.info({ event: 'notifier.started' }, 'connected to the broker');
  });

  const loop = (async () => {
    await ready;
    while (!stopping.signal.aborted) {
      const answer = await untilAnswered('claim', () => broker.notifier.claim.mutate({ max: 20, wait_ms: waitMs }, { signal: stopping.signal }));
      for (const d of answer?.deliveries ?? []) queues.push(d);
    }
  })();

  return {
    ready,
    async close() {
      stopping.abort();
      await loop.catch(() => undefined);
      let timer: NodeJS.Timeout | undefined;
      const settled = await Promise.race([queues.idle().then(() => true), new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), SEND_SETTLE_MS)))]);
      clearTimeout(timer);
      if (!settled) log.warn({ event: 'notifier.stop_cut_sends', deliveries: queues.inFlight() }, 'sends still in flight at the stop stay claimed; the next start records them UNKNOWN');
    },
  };
}
