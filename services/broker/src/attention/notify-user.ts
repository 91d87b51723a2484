/**
 * notify_user: an agent asks for the person's attention with one line. Rate-limited per
 * client identity (the principal's actor, never a name the client gives itself): at most
 * `notifications.agent_per_minute` a minute, else RATE_LIMITED with the wait. A session
 * it names must be one the caller may read. The message is redacted and de-duplicated by
 * the attention center, then shown on the dashboard and sent to the channels.
 */
import { AppError, type NotifyUserInput, type NotifyUserOutput } from '@terminal-mcp/contract';
import type { SessionReader } from '../reads/session-reader.js';
import type { AttentionCenter } from './center.js';

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

export async function notifyUser(
  deps: { reader: Pick<SessionReader, 'status'>; attention: AttentionCenter; perMinute: number },
  actor: string,
  input: NotifyUserInput,
): Promise<NotifyUserOutput> {
  if (input.session !== undefined) await deps.reader.status(input.session);
  deps.attention.agentNotices.take(actor, deps.perMinute);
  const notice = deps.attention.raise({ kind: 'agent_message', level: input.level ?? 'info', session: input.session ?? null, message: input.message, from: actor });
  return { notice_id: notice?.id ?? 0, deduplicated: notice === null };
}
