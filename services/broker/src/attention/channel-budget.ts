/** Each notification channel's minute: at most `per_minute` deliveries in any 60 s, and
 * notices a client raised (notify_user, terminal_request_human) at most half of it
 * (rounded up) and never its last slot, so at least one is always there for what the
 * broker raises itself (approval_needed, session_died, supervisor events): with
 * `per_minute: 1` the one slot is the broker's. A channel whose `kinds` take only client
 * notices has nothing to keep a slot for: clients get all of it. Decided when the notice is raised,
 * whether or not the notifier is running: a backlog the notifier finds when it returns
 * never holds more than the channels' budgets allowed. */
import type { Notice } from '@terminal-mcp/contract';
import type { Channel } from './channel-request.js';

const WINDOW_MS = 60_000;

const CLIENT_KINDS: ReadonlySet<string> = new Set(['agent_message', 'waiting_for_human']);
export function raisedByClient(notice: Pick<Notice, 'kind'>): boolean {
  return CLIENT_KINDS.has(notice.kind);
}
export function clientShareOf(perMinute: number, kinds?: readonly string[]): number {
  if (kinds !== undefined && kinds.every((k) => CLIENT_KINDS.has(k))) return perMinute;
  return Math.min(Math.ceil(perMinute / 2), perMinute - 1);
}

export interface ChannelBudget {
  /** True (and counted) when `channel` may take one more delivery of `notice` now. */
  take(channel: Pick<Channel, 'name' | 'per_minute' | 'kinds'>, notice: Pick<Notice, 'kind'>): boolean;
}

export function createChannelBudget(now: () => number): ChannelBudget {
  const sentAt = new Map<string, number[]>();
  const recentOf = (key: string) => {
    const recent = (sentAt.get(key) ?? []).filter((t) => now() - t < WINDOW_MS);
    sentAt.set(key, recent);
    return recent;
  };
  return {
    take(channel, notice) {
      const all = recentOf(channel.name);
      const fromClients = recentOf(`${channel.name}\u0000client`);
      const client = raisedByClient(notice);
      if (all.length >= channel.per_minute || (client && fromClients.length >= clientShareOf(channel.per_minute, channel.kinds))) return false;
      all.push(now());
      if (client) fromClients.push(now());
      return true;
    },
  };
}
