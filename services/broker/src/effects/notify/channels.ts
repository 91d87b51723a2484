/**
 * Notification channels: each notice (attention/center.ts, already redacted and
 * de-duplicated) goes to every configured channel whose filter takes it (kinds, minimum
 * level), at most `per_minute` a minute per channel (notices clients raised at most half
 * of it and never the last slot, so the broker's own are never starved by them), as a JSON POST (a generic webhook)
 * or ntfy's format (the message as the body, Title/Priority/Tags headers; ntfy.sh and
 * compatible push servers). Every delivery is written to notify.db with its outcome
 * (SENT, FAILED, RATE_LIMITED), one row per channel and notice; a failure is logged and
 * dropped (best effort, never blocking whoever raised the notice). Redirects are refused: a channel
 * URL is the operator's, not whatever it points to.
 */
import type { Notice, NoticeLevel } from '@terminal-mcp/contract';
import type { Logger } from 'pino';
import type { BrokerConfig } from '../../config/schema.js';
import type { NotifyStore } from '../store/notify-store.js';

type Channel = BrokerConfig['notifications']['channels'][number];

const LEVEL_RANK: Record<NoticeLevel, number> = { info: 0, warning: 1, urgent: 2 };
const NTFY_PRIORITY: Record<NoticeLevel, string> = { info: '3', warning: '4', urgent: '5' };
const WINDOW_MS = 60_000;

/** Notices a client raised (notify_user, terminal_request_human): they may use at most
 * half of a channel's minute (rounded up) and never its last slot, so at least one is
 * always there for what the broker raises itself (approval_needed, session_died,
 * supervisor events): with `per_minute: 1` the one slot is the broker's. A channel whose
 * `kinds` take only client notices has nothing to keep a slot for: clients get all of it. */
const CLIENT_KINDS: ReadonlySet<string> = new Set(['agent_message', 'waiting_for_human']);
export function raisedByClient(notice: Pick<Notice, 'kind'>): boolean {
  return CLIENT_KINDS.has(notice.kind);
}
export function clientShareOf(perMinute: number, kinds?: readonly string[]): number {
  if (kinds !== undefined && kinds.every((k) => CLIENT_KINDS.has(k))) return perMinute;
  return Math.min(Math.ceil(perMinute / 2), perMinute - 1);
}

/** Whether this channel takes this notice (pure). */
export function channelTakes(channel: Pick<Channel, 'kinds' | 'min_level'>, notice: Pick<Notice, 'kind' | 'level'>): boolean {
  if (channel.kinds !== undefined && !channel.kinds.includes(notice.kind)) return false;
  return LEVEL_RANK[notice.level] >= LEVEL_RANK[channel.min_level];
}

function request(channel: Channel, notice: Notice): { headers: Record<string, string>; body: string } {
  if (channel.format === 'ntfy') {
    // Header values must be ASCII without line breaks: the session name is caller text.
    const title = `Terminal MCP: ${notice.kind.replace(/_/g, ' ')}${notice.session === null ? '' : ` in ${notice.session}`}`.replace(/[^\x20-\x7e]/g, '?').slice(0, 200);
    return {
      headers: { 'content-type': 'text/plain; charset=utf-8', title, priority: NTFY_PRIORITY[notice.level], tags: notice.kind },
      body: notice.message,
    };
  }
  return { headers: { 'content-type': 'application/json' }, body: JSON.stringify({ source: 'terminal-mcp', notice }) };
}

export function attachNotificationChannels(opts: {
  channels: readonly Channel[];
  store: NotifyStore;
  log: Pick<Logger, 'warn'>;
  subscribe: (listener: (notice: Notice) => void) => () => void;
  now?: () => number;
}): () => void {
  const now = opts.now ?? Date.now;
  const sentAt = new Map<string, number[]>();

  const record = (channel: Channel, notice: Notice, outcome: 'SENT' | 'FAILED' | 'RATE_LIMITED', httpStatus: number | null) => {
    try {
      opts.store.recordDelivery({ at: now(), noticeId: notice.id, kind: notice.kind, session: notice.session, raisedBy: notice.from, channel: channel.name, outcome, httpStatus });
    } catch (err) {
      opts.log.warn({ event: 'notify.audit_failed', channel: channel.name, err: (err as Error).message }, 'a notice delivery could not be recorded');
    }
  };

  async function deliver(channel: Channel, notice: Notice): Promise<void> {
    const recent = (sentAt.get(channel.name) ?? []).filter((t) => now() - t < WINDOW_MS);
    const clientKey = `${channel.name}\u0000client`;
    const fromClients = (sentAt.get(clientKey) ?? []).filter((t) => now() - t < WINDOW_MS);
    const client = raisedByClient(notice);
    sentAt.set(channel.name, recent);
    sentAt.set(clientKey, fromClients);
    if (recent.length >= channel.per_minute || (client && fromClients.length >= clientShareOf(channel.per_minute, channel.kinds))) {
      record(channel, notice, 'RATE_LIMITED', null);
      return;
    }
    recent.push(now());
    if (client) fromClients.push(now());
    const { headers, body } = request(channel, notice);
    try {
      const res = await fetch(channel.url, { method: 'POST', headers, body, signal: AbortSignal.timeout(channel.timeout_seconds * 1000), redirect: 'error' });
      await res.arrayBuffer().catch(() => undefined);
      record(channel, notice, res.ok ? 'SENT' : 'FAILED', res.status);
      if (!res.ok) opts.log.warn({ event: 'notify.delivery_failed', channel: channel.name, status: res.status }, 'a notification channel refused a notice');
    } catch (err) {
      record(channel, notice, 'FAILED', null);
      opts.log.warn({ event: 'notify.delivery_failed', channel: channel.name, err: (err as Error).name }, 'a notification channel could not be reached');
    }
  }

  return opts.subscribe((notice) => {
    for (const channel of opts.channels) if (channelTakes(channel, notice)) void deliver(channel, notice);
  });
}
