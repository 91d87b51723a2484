/** terminal_session_start: a new tmux session running a launch profile's own command, in
 * a directory under its roots, under a name its pattern allows, on the host the profile
 * names (its `node`, else this host: the operator decides where a program runs; the
 * client's `name` is the bare session name and the answer names it `node:name`); then,
 * optionally, a first prompt typed through the ordinary guarded input path (input/send.ts
 * `sendText`: the same gates, audit row, lease and identity re-check as terminal_send_text,
 * routed to the node as a send to `node:name` is). */
import { AppError, readAppErrorData, type SessionStartInput, type SessionStartOutput } from '@terminal-mcp/contract';
import { sendText } from '../input/send.js';
import { qualify } from '../nodes/node-names.js';
import { defaultLaunchName } from '../policy/launch.js';
import { profileHost } from './launch-host.js';
import { launchSession, waitForProgram } from './launch-session.js';
import { withLifecycleAudit } from './lifecycle-audit.js';
import type { LifecycleCaller } from './lifecycle-deps.js';
import { profileNamed, requireLaunchName, requireLifecycle, requireSessionRoom, requireUnguardedProfile, resolveLaunchCwd } from './lifecycle-gates.js';

const TOOL = 'terminal_session_start';

export function startSession(caller: LifecycleCaller, input: SessionStartInput): Promise<SessionStartOutput> {
  return withLifecycleAudit(caller, TOOL, async (audit) => {
    audit.session(input.name ?? null);
    requireLifecycle(caller);
    const profile = profileNamed(caller, input.profile);
    if (input.name !== undefined) {
      audit.session(qualify(profile.node, input.name));
      if (input.name.includes(':')) {
        throw new AppError('LAUNCH_NOT_ALLOWED', 'name the new session without a host: the profile decides where it starts', profile.node === undefined ? undefined : `Profile ${profile.name} starts on node ${profile.node}; pass the bare name, the session is then ${profile.node}:<name>.`);
      }
      // A name the profile refuses is refused before its host is asked anything.
      requireLaunchName(caller, profile, profile.node, input.name);
    }
    // NODE_UNAVAILABLE here (with the node's hint) when the profile's node is down.
    const host = profileHost(caller.deps.hosts, profile);
    const listing = await host.on(() => host.tmux.listSessions());
    const taken = new Set(listing.map((s) => s.name));
    const name = input.name ?? defaultLaunchName(profile, taken);
    audit.session(host.qualified(name));
    requireLaunchName(caller, profile, host.node, name);
    requireUnguardedProfile(caller, profile, name);
    const cwd = await resolveLaunchCwd(host, profile, input.cwd);
    if (taken.has(name)) throw new AppError('SESSION_EXISTS', 'a session already has that name');
    requireSessionRoom(caller, profile);
    const summary = `profile=${profile.name}${host.node === undefined ? '' : ` node=${host.node}`} cwd=${cwd}`;
    const base = { profile: profile.name, session: host.qualified(name), cwd };
    if (input.dry_run) {
      return { ...base, result: 'DRY_RUN', session_id: null, pane_id: null, foreground: null, audit_id: audit.dryRun(summary), prompt: null };
    }
    const auditId = audit.begin(summary);
    const started = await launchSession(caller.deps, host, { profile, name, cwd, actor: caller.actor, previousId: null });
    const { managed } = started;
    audit.finish('SENT', null, `STARTED ${managed.sessionId}`);
    const foreground = await waitForProgram(host, profile, started);
    let prompt: SessionStartOutput['prompt'] = null;
    if (input.prompt !== undefined) {
      try {
        const sent = await sendText(caller, { tool: TOOL, target: { session: managed.name }, text: input.prompt, enter: true, dryRun: false });
        prompt = { result: sent.result, audit_id: sent.audit_id, error_code: null };
      } catch (err) {
        // The session runs; only the prompt was refused (its own audit row says why).
        prompt = { result: 'BLOCKED', audit_id: null, error_code: readAppErrorData(err)?.code ?? 'INTERNAL' };
      }
    }
    return { ...base, result: 'STARTED', session_id: managed.sessionId, pane_id: managed.paneId, foreground, audit_id: auditId, prompt };
  });
}
