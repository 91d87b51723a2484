/** terminal_session_close: kills exactly the session the caller saw (name and session id,
 * and inside tmux its creation time), only one a launch profile started unless the operator
 * allows more; without `confirm: true` it only says what it would do. The registry marks
 * it CLOSED before the kill, so recovery never mistakes a close for a crash. */
import { AppError, type SessionCloseOutput, type SessionPinnedInput } from '@terminal-mcp/contract';
import { withLifecycleAudit } from './lifecycle-audit.js';
import type { LifecycleCaller } from './lifecycle-deps.js';
import { auditedTargetOf, requireClosable, requireLifecycle } from './lifecycle-gates.js';

export function closeSession(caller: LifecycleCaller, input: SessionPinnedInput): Promise<SessionCloseOutput> {
  return withLifecycleAudit(caller, 'terminal_session_close', async (audit) => {
    audit.session(input.session);
    requireLifecycle(caller);
    const { found, managed } = await requireClosable(caller, input.session, input.expect_session_id, { needsProfile: false });
    audit.session(found.name, auditedTargetOf(found));
    const base = { session: found.name, session_id: found.sessionId, profile: managed?.profile ?? null };
    const summary = `close${managed ? ` profile=${managed.profile}` : ' (not started by a profile)'}`;
    if (input.confirm !== true) return { ...base, result: 'DRY_RUN', audit_id: audit.dryRun(summary) };
    const auditId = audit.begin(summary);
    const store = caller.deps.lifecycle.store;
    if (managed) store.transition(managed.id, 'CLOSED', 'closed', caller.actor, null, Date.now());
    const killed = await caller.deps.lifecycle.tmux.kill(found.sessionId, found.created);
    if (!killed) {
      if (managed) store.transition(managed.id, 'RUNNING', 'recover_failed', caller.actor, 'close did not kill the session', Date.now());
      throw new AppError('IDENTITY_CHANGED', 'the session was not closed: it is gone or is another session now');
    }
    audit.finish('SENT', null, 'CLOSED');
    return { ...base, result: 'CLOSED', audit_id: auditId };
  });
}
