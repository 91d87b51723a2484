/** terminal_session_restart: the same profile, name and directory in a new session (a new
 * identity); the registry links the new row to the old one. Only a session a profile
 * started can be restarted (its profile says what to run). Dry run unless `confirm`. */
import { AppError, type SessionPinnedInput, type SessionRestartOutput } from '@terminal-mcp/contract';
import { launchSession, waitForProgram } from './launch-session.js';
import { withLifecycleAudit } from './lifecycle-audit.js';
import type { LifecycleCaller } from './lifecycle-deps.js';
import { auditedTargetOf, profileNamed, requireClosable, requireLaunchName, requireLifecycle, requireUnguardedProfile, resolveLaunchCwd } from './lifecycle-gates.js';

export function restartSession(caller: LifecycleCaller, input: SessionPinnedInput): Promise<SessionRestartOutput> {
  return withLifecycleAudit(caller, 'terminal_session_restart', async (audit) => {
    audit.session(input.session);
    requireLifecycle(caller);
    const { found, managed } = await requireClosable(caller, input.session, input.expect_session_id, { needsProfile: true });
    if (!managed) throw new AppError('LAUNCH_NOT_ALLOWED', 'this session was not started by a launch profile');
    audit.session(found.name, auditedTargetOf(found));
    // The profile as configured now: it may have changed since the session started.
    const profile = profileNamed(caller, managed.profile);
    requireLaunchName(caller, profile, found.name);
    requireUnguardedProfile(caller, profile, found.name);
    const cwd = resolveLaunchCwd(profile, managed.cwd);
    const base = { session: found.name, profile: profile.name, previous_session_id: found.sessionId };
    const summary = `restart profile=${profile.name} cwd=${cwd}`;
    if (input.confirm !== true) return { ...base, result: 'DRY_RUN', session_id: null, pane_id: null, foreground: null, audit_id: audit.dryRun(summary) };
    const auditId = audit.begin(summary);
    const { store, tmux } = caller.deps.lifecycle;
    store.transition(managed.id, 'RESTARTING', 'closed', caller.actor, 'restart', Date.now());
    if (!(await tmux.kill(found.sessionId, found.created))) {
      store.transition(managed.id, 'RUNNING', 'recover_failed', caller.actor, 'restart did not kill the session', Date.now());
      throw new AppError('IDENTITY_CHANGED', 'the session was not restarted: it is gone or is another session now');
    }
    let next;
    try {
      next = await launchSession(caller.deps, { profile, name: found.name, cwd, actor: caller.actor, previousId: managed.id });
    } catch (err) {
      store.transition(managed.id, 'DIED', 'recover_failed', caller.actor, 'restart could not start the new session', Date.now());
      throw err;
    }
    audit.finish('SENT', null, `RESTARTED ${next.sessionId}`);
    const foreground = await waitForProgram(caller.deps, profile, next);
    return { ...base, result: 'RESTARTED', session_id: next.sessionId, pane_id: next.paneId, foreground, audit_id: auditId };
  });
}
