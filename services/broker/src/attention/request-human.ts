/**
 * terminal_request_human: an agent hands a pane to the person — typically one stopped at
 * a password, passphrase or one-time-code prompt (status WAITING_HUMAN), which no agent
 * may answer. The pane must be one the caller may read (the read gate, like
 * terminal_status); the request becomes a `waiting_for_human` notice (redacted, one per
 * session and reason while fresh) that the dashboard shows with a secret entry and the
 * notification channels carry. Nothing is typed. It spends the caller's notice budget,
 * shared with notify_user (`notifications.agent_per_minute`, per principal): 25 urgent
 * requests in a row are not 25 pushes to the phone (issue 45).
 */
import type { RequestHumanOutput } from '@terminal-mcp/contract';
import type { SessionReader } from '../reads/session-reader.js';
import type { AttentionCenter } from './center.js';

export async function requestHuman(
  deps: { reader: Pick<SessionReader, 'status'>; attention: AttentionCenter; perMinute: number },
  actor: string,
  input: { session: string; reason: string },
): Promise<RequestHumanOutput> {
  const status = await deps.reader.status(input.session);
  deps.attention.agentNotices.take(actor, deps.perMinute);
  const raised = deps.attention.raise({
    kind: 'waiting_for_human',
    level: 'urgent',
    session: input.session,
    message: input.reason,
    from: actor,
  });
  const open = raised ?? deps.attention.humanRequests().findLast((n) => n.session === input.session);
  return { request_id: open?.id ?? 0, session: input.session, status: status.status, notified: true };
}
