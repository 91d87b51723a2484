/** terminal_session_close: kills exactly the session the caller saw (name and session id,
 * and inside tmux its creation time), on this host or, for `node:session`, on that node
 * (launch-host.ts), only one a launch profile started unless the operator allows more;
 * without `confirm: true` it only says what it would do. The registry marks it CLOSED
 * before the kill, so recovery never mistakes a close for a crash. */
import { AppError, type SessionCloseOutput, type SessionPinnedInput } from '@terminal-mcp/contract';
import { auditedTargetOn, namedSessionHost } from './launch-host.js';
import { withLifecycleAudit } from './lifecycle-audit.js';
import type { LifecycleCaller } from './lifecycle-deps.js';
import { requireClosable, requireLifecycle } from './lifecycle-gates.js';

export function closeSession(caller: LifecycleCaller, input: SessionPinnedInput): Promise<SessionCloseOutput> {
  return withLifecycleAudit(caller, 'terminal_session_close', async (audit) => {
    audit.session(input.session);
    requireLifecycle(caller);
    const { host, name } = namedSessionHost(caller.deps.hosts, input.session);
    const { found, managed } = await requireClosable(caller, host, name, input.expect_session_id, { needsProfile: false });
    const session = host.qualified(found.name);
    audit.session(session, auditedTargetOn(host, found));
    const base = { session, session_id: host.qualified(found.sessionId), profile: managed?.profile ?? null };
    const summary = `close${managed ? ` profile=${managed.profile}` : ' (not started by a profile)'}`;
    if (input.confirm !== true) return { ...base, result: 'DRY_RUN', audit_id: audit.dryRun(summary) };
    const auditId = audit.begin(summary);
    const store = caller.deps.lifecycle.store;
    const reopen = (why: string) => managed && store.transition(managed.id, 'RUNNING', 'recover_failed', caller.actor, why, Date.now());
    if (managed) store.transition(managed.id, 'CLOSED', 'closed', caller.actor, null, Date.now());
    let killed: boolean;
    try {
      killed = await host.on(() => host.sessions.kill(found.sessionId, found.created));
    } catch (err) {
      reopen('close got no answer: the session may still run');
      throw err;
    }
    if (!killed) {
      reopen('close did not kill the session');
      throw new AppError('IDENTITY_CHANGED', 'the session was not closed: it is gone or is another session now');
    }
    audit.finish('SENT', null, 'CLOSED');
    return { ...base, result: 'CLOSED', audit_id: auditId };
  });
}
