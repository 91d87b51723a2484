/** notify_user's and terminal_request_human's budget per client identity (the principal's
 * actor, never a name the client gives itself): at most `notifications.agent_per_minute`
 * notices a minute, else RATE_LIMITED with the wait. Owned by the attention center; its
 * own module so the center and the use cases that spend it do not import each other. */
import { AppError } from '@terminal-mcp/contract';

const WINDOW_MS = 60_000;
/** Callers remembered at most (the oldest forgotten first). */
const MAX_CALLERS = 1000;

export interface AgentNoticeLimiter {
  /** Throws RATE_LIMITED when `actor` has used its notices for this minute. */
  take(actor: string, perMinute: number, now?: number): void;
}

export function createAgentNoticeLimiter(): AgentNoticeLimiter {
  const calls = new Map<string, number[]>();
  return {
    take(actor, perMinute, now = Date.now()) {
      const recent = (calls.get(actor) ?? []).filter((t) => now - t < WINDOW_MS);
      if (recent.length >= perMinute) {
        const retryAfterSeconds = Math.max(1, Math.ceil((WINDOW_MS - (now - (recent[0] as number))) / 1000));
        throw new AppError('RATE_LIMITED', `at most ${perMinute} notices a minute per client`, `Wait ${retryAfterSeconds} s; one notice per event is enough.`, { retryAfterSeconds });
      }
      recent.push(now);
      calls.delete(actor);
      calls.set(actor, recent);
      if (calls.size > MAX_CALLERS) calls.delete(calls.keys().next().value as string);
    },
  };
}
