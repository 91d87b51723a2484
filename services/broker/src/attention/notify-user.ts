/**
 * notify_user: an agent asks for the person's attention with one line. Rate-limited per
 * client identity (the principal's actor, never a name the client gives itself): at most
 * `notifications.agent_per_minute` a minute, else RATE_LIMITED with the wait. A session
 * it names must be one the caller may read. The message is redacted and de-duplicated by
 * the attention center, then shown on the dashboard and sent to the channels.
 */
import type { NotifyUserInput, NotifyUserOutput } from '@terminal-mcp/contract';
import type { SessionReader } from '../reads/session-reader.js';
import type { AttentionCenter } from './center.js';

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
