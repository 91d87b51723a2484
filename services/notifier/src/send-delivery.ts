/**
 * One delivery as HTTP: a POST of the body the broker built to the channel's URL, each
 * attempt bounded by the channel's timeout, redirects refused (a channel URL is the
 * operator's, not whatever it points to), the answer's body read and dropped. A network
 * error, a timeout, a 5xx or a 429 is tried again up to `retries` times with a growing
 * pause (0.5 s, 1 s, 2 s ...); any other answer is final. The broker's notification
 * channels have `retries: 0` (as before the notifier existed); the supervisor webhook has
 * its configured `supervisor.notify.retries`.
 */
import type { DeliveryReport, PendingDelivery } from '@terminal-mcp/contract';

const FIRST_PAUSE_MS = 500;

export interface SendOptions {
  /** Pauses between attempts (tests may shorten nothing: real time). Aborting ends the
   * retries early: the notifier is stopping. */
  signal?: AbortSignal;
}

const pause = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    timer.unref();
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    }, { once: true });
  });

/** Sends `d`; the report the broker records (never throws). */
export async function sendDelivery(d: PendingDelivery, options: SendOptions = {}): Promise<DeliveryReport> {
  let last: Pick<DeliveryReport, 'http_status' | 'reason'> = { http_status: null, reason: 'not attempted' };
  let attempts = 0;
  for (let attempt = 0; attempt <= d.retries; attempt++) {
    attempts = attempt + 1;
    try {
      const res = await fetch(d.url, { method: 'POST', headers: d.headers, body: d.body, signal: AbortSignal.timeout(d.timeout_ms), redirect: 'error' });
      await res.arrayBuffer().catch(() => undefined);
      if (res.ok) return { id: d.id, outcome: 'SENT', http_status: res.status, reason: null, attempts };
      last = { http_status: res.status, reason: `HTTP ${res.status}` };
      if (res.status < 500 && res.status !== 429) break;
    } catch (err) {
      last = { http_status: null, reason: (err as Error).name === 'TimeoutError' ? 'timed out' : 'connection failed' };
    }
    if (attempt < d.retries) {
      if (options.signal?.aborted) break;
      await pause(FIRST_PAUSE_MS * 2 ** attempt, options.signal);
      if (options.signal?.aborted) break;
    }
  }
  return { id: d.id, outcome: 'FAILED', ...last, attempts };
}
