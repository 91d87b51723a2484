/** Each notification channel's minute: at most `per_minute` deliveries in any 60 s, and
 * notices a client raised (notify_user, terminal_request_human) at most half of it
 * (rounded up), so the rest is always there for what the broker raises itself
 * (approval_needed, session_died, supervisor events). Decided when the notice is raised,
 * whether or not the notifier is running: a backlog the notifier finds when it returns
 * never holds more than the channels' budgets allowed. */
import type { Notice } from '@terminal-mcp/contract';
import type { Channel } from './channel-request.js';

const WINDOW_MS = 60_000;

export function raisedByClient(notice: Pick<Notice, 'kind'>): boolean {
  return notice.kind === 'agent_message' || notice.kind === 'waiting_for_human';
}
export const clientShareOf = (perMinute: number): number => Math.ceil(perMinute / 2);

export interface ChannelBudget {
  /** True (and counted) when `channel` may take one more delivery of `notice` now. */
  take(channel: Pick<Channel, 'name' | 'per_minute'>, notice: Pick<Notice, 'kind'>): boolean;
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
      if (all.length >= channel.per_minute || (client && fromClients.length >= clientShareOf(channel.per_minute))) return false;
      all.push(now());
      if (client) fromClients.push(now());
      return true;
    },
  };
}
