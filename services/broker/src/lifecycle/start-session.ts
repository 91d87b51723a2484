/** terminal_session_start: a new tmux session running a launch profile's own command, in
 * a directory under its roots, under a name its pattern allows; then, optionally, a first
 * prompt typed through the ordinary guarded input path (input/send.ts `sendText`: the same
 * gates, audit row, lease and identity re-check as terminal_send_text). */
import { AppError, readAppErrorData, type SessionStartInput, type SessionStartOutput } from '@terminal-mcp/contract';
import { sendText } from '../input/send.js';
import { defaultLaunchName } from '../policy/launch.js';
import { launchSession, waitForProgram } from './launch-session.js';
import { withLifecycleAudit } from './lifecycle-audit.js';
import type { LifecycleCaller } from './lifecycle-deps.js';
import { profileNamed, requireLaunchName, requireLifecycle, requireUnguardedProfile, resolveLaunchCwd } from './lifecycle-gates.js';

const TOOL = 'terminal_session_start';

export function startSession(caller: LifecycleCaller, input: SessionStartInput): Promise<SessionStartOutput> {
  return withLifecycleAudit(caller, TOOL, async (audit) => {
    audit.session(input.name ?? null);
    requireLifecycle(caller);
    const profile = profileNamed(caller, input.profile);
    const listing = await caller.deps.tmux.listSessions();
    const taken = new Set(listing.map((s) => s.name));
    const name = input.name ?? defaultLaunchName(profile, taken);
    audit.session(name);
    requireLaunchName(caller, profile, name);
    requireUnguardedProfile(caller, profile, name);
    const cwd = resolveLaunchCwd(profile, input.cwd);
    if (taken.has(name)) throw new AppError('SESSION_EXISTS', 'a session already has that name');
    const summary = `profile=${profile.name} cwd=${cwd}`;
    const base = { profile: profile.name, session: name, cwd };
    if (input.dry_run) {
      return { ...base, result: 'DRY_RUN', session_id: null, pane_id: null, foreground: null, audit_id: audit.dryRun(summary), prompt: null };
    }
    const auditId = audit.begin(summary);
    const managed = await launchSession(caller.deps, { profile, name, cwd, actor: caller.actor, previousId: null });
    audit.finish('SENT', null, `STARTED ${managed.sessionId}`);
    const foreground = await waitForProgram(caller.deps, profile, managed);
    let prompt: SessionStartOutput['prompt'] = null;
    if (input.prompt !== undefined) {
      try {
        const sent = await sendText(caller, { tool: TOOL, target: { session: name }, text: input.prompt, enter: true, dryRun: false });
        prompt = { result: sent.result, audit_id: sent.audit_id, error_code: null };
      } catch (err) {
        // The session runs; only the prompt was refused (its own audit row says why).
        prompt = { result: 'BLOCKED', audit_id: null, error_code: readAppErrorData(err)?.code ?? 'INTERNAL' };
      }
    }
    return { ...base, result: 'STARTED', session_id: managed.sessionId, pane_id: managed.paneId, foreground, audit_id: auditId, prompt };
  });
}
