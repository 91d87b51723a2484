/**
 * supervisor.notify.url: a plain JSON POST of each supervisor event (already redacted),
 * so an event can reach a phone (ntfy, Slack and similar). Best effort, off the event
 * path: a timeout per attempt, a few retries with a growing pause, failures logged and
 * dropped. Events are sent one at a time, in order; a backlog beyond MAX_QUEUE drops the
 * oldest.
 */
import type { SupervisorEvent } from '@terminal-mcp/contract';
import type { Logger } from 'pino';

const MAX_QUEUE = 100;

export interface WebhookOptions {
  url: string;
  timeoutSeconds: number;
  retries: number;
  log: Pick<Logger, 'warn'>;
}

export function createWebhookNotifier(opts: WebhookOptions): (event: SupervisorEvent) => void {
  const queue: SupervisorEvent[] = [];
  let draining = false;

  async function post(event: SupervisorEvent): Promise<void> {
    for (let attempt = 0; attempt <= opts.retries; attempt++) {
      try {
        const res = await fetch(opts.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(event),
          signal: AbortSignal.timeout(opts.timeoutSeconds * 1000),
          redirect: 'error',
        });
        if (res.ok) return;
        if (res.status >= 400 && res.status < 500 && res.status !== 429) break;
      } catch {
        // retried below
      }
      if (attempt < opts.retries) await new Promise((r) => setTimeout(r, 500 * 2 ** attempt).unref());
    }
    opts.log.warn({ event: 'supervisor.notify_failed', eventId: event.id }, 'the supervisor webhook did not accept an event');
  }

  async function drain(): Promise<void> {
    draining = true;
    try {
      for (let next = queue.shift(); next !== undefined; next = queue.shift()) await post(next);
    } finally {
      draining = false;
    }
  }

  return (event) => {
    queue.push(event);
    if (queue.length > MAX_QUEUE) queue.shift();
    if (!draining) void drain();
  };
}
