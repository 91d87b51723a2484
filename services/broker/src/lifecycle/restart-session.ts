/** terminal_session_restart: the same profile, name and directory in a new session (a new
 * identity), on the same host (`node:session` on its node); the registry links the new
 * row to the old one. Only a session a profile started can be restarted (its profile says
 * what to run), and only while the profile still starts on that host. Dry run unless
 * `confirm`. */
import { AppError, type SessionPinnedInput, type SessionRestartOutput } from '@terminal-mcp/contract';
import { auditedTargetOn, namedSessionHost } from './launch-host.js';
import { launchSession, waitForProgram, type LaunchedSession } from './launch-session.js';
import { withLifecycleAudit } from './lifecycle-audit.js';
import type { LifecycleCaller } from './lifecycle-deps.js';
import { profileNamed, requireClosable, requireLaunchName, requireLifecycle, requireUnguardedProfile, resolveLaunchCwd } from './lifecycle-gates.js';

export function restartSession(caller: LifecycleCaller, input: SessionPinnedInput): Promise<SessionRestartOutput> {
  return withLifecycleAudit(caller, 'terminal_session_restart', async (audit) => {
    audit.session(input.session);
    requireLifecycle(caller);
    const { host, name } = namedSessionHost(caller.deps.hosts, input.session);
    const { found, managed } = await requireClosable(caller, host, name, input.expect_session_id, { needsProfile: true });
    if (!managed) throw new AppError('LAUNCH_NOT_ALLOWED', 'this session was not started by a launch profile');
    const session = host.qualified(found.name);
    audit.session(session, auditedTargetOn(host, found));
    // The profile as configured now: it may have changed since the session started.
    const profile = profileNamed(caller, managed.profile);
    if (profile.node !== host.node) {
      throw new AppError('LAUNCH_NOT_ALLOWED', `profile ${profile.name} no longer starts on ${host.node === undefined ? 'this host' : `node ${host.node}`}`, 'Close this session and start the profile again.');
    }
    requireLaunchName(caller, profile, host.node, found.name);
    requireUnguardedProfile(caller, profile, found.name);
    const cwd = await resolveLaunchCwd(host, profile, managed.cwd);
    const base = { session, profile: profile.name, previous_session_id: host.qualified(found.sessionId) };
    const summary = `restart profile=${profile.name}${host.node === undefined ? '' : ` node=${host.node}`} cwd=${cwd}`;
    if (input.confirm !== true) return { ...base, result: 'DRY_RUN', session_id: null, pane_id: null, foreground: null, audit_id: audit.dryRun(summary) };
    const auditId = audit.begin(summary);
    const { store } = caller.deps.lifecycle;
    store.transition(managed.id, 'RESTARTING', 'closed', caller.actor, 'restart', Date.now());
    let killed: boolean;
    try {
      killed = await host.on(() => host.sessions.kill(found.sessionId, found.created));
    } catch (err) {
      store.transition(managed.id, 'RUNNING', 'recover_failed', caller.actor, 'restart got no answer to the kill: the session may still run', Date.now());
      throw err;
    }
    if (!killed) {
      store.transition(managed.id, 'RUNNING', 'recover_failed', caller.actor, 'restart did not kill the session', Date.now());
      throw new AppError('IDENTITY_CHANGED', 'the session was not restarted: it is gone or is another session now');
    }
    let next: LaunchedSession;
    try {
      next = await launchSession(caller.deps, host, { profile, name: found.name, cwd, actor: caller.actor, previousId: managed.id });
    } catch (err) {
      store.transition(managed.id, 'DIED', 'recover_failed', caller.actor, 'restart could not start the new session', Date.now());
      throw err;
    }
    audit.finish('SENT', null, `RESTARTED ${next.managed.sessionId}`);
    const foreground = await waitForProgram(host, profile, next);
    return { ...base, result: 'RESTARTED', session_id: next.managed.sessionId, pane_id: next.managed.paneId, foreground, audit_id: auditId };
  });
}
