/**
 * The gates every lifecycle call passes, in order, at the moment it acts (the effect is
 * authorized here, not only at the procedure's door):
 *  1. the caller's principal may cause the `lifecycle` effect (policy/authority.ts);
 *  2. `permissions.session_lifecycle` is on (LIFECYCLE_DISABLED);
 *  3. the profile exists and allows the name and directory (policy/launch.ts);
 *  4. for an existing session: exactly the session the caller saw (IDENTITY_CHANGED), the
 *     input decision of a send on it (input/authorize's gates on the target), a
 *     name that is not sensitive or protected, started by a profile (unless
 *     `session_lifecycle.close_unmanaged`, and then the input policy must allow it), and no
 *     guarded command anywhere in its pane's process tree (COMMAND_GUARDED).
 * Each gate that reads a host reads the one the session is on (launch-host.ts): a node's
 * tmux, process tree and directories are read on the node.
 */
import { AppError } from '@terminal-mcp/contract';
import { requireEffect } from '../access/require-effect.js';
import type { LaunchProfile as ConfigLaunchProfile } from '../config/launch-profile-schema.js';
import type { ManagedSession } from '../effects/store/lifecycle-store.js';
import type { SessionFacts } from '../effects/tmux/types.js';
import { isSensitiveName } from '../policy/access.js';
import { commandName, firstGuardedCommand, nameIs } from '../policy/foreground.js';
import { checkLaunchName, checkRequestedCwd, cwdUnderRoots, findProfile, isRefusal, type LaunchRefusal } from '../policy/launch.js';
import { qualify } from '../nodes/node-names.js';
import type { LaunchHost } from './launch-host.js';
import type { LifecycleCaller } from './lifecycle-deps.js';

const refuse = (r: LaunchRefusal): never => {
  throw new AppError(r.code, r.message);
};

/** Gates 1 and 2. */
export function requireLifecycle(caller: LifecycleCaller): void {
  requireEffect(caller, 'lifecycle');
  if (!caller.deps.config.permissions.session_lifecycle) throw new AppError('LIFECYCLE_DISABLED', 'starting, closing and restarting sessions is turned off');
}

export function profileNamed(caller: LifecycleCaller, name: string): ConfigLaunchProfile {
  const found = findProfile(caller.deps.config.launch_profiles, name);
  return isRefusal(found) ? refuse(found) : found;
}

/** The name rules of the profile, on the session's name on its host; the operator's
 * protected_sessions may name a node's session bare or as `node:session`. */
export function requireLaunchName(caller: LifecycleCaller, profile: ConfigLaunchProfile, node: string | undefined, name: string): void {
  const protectedNames = caller.deps.config.session_lifecycle.protected_sessions;
  const refusal = checkLaunchName(profile, name, protectedNames);
  if (refusal) refuse(refusal);
  if (node !== undefined && protectedNames.includes(qualify(node, name))) throw new AppError('LAUNCH_NOT_ALLOWED', 'this session is protected (session_lifecycle.protected_sessions)');
}

/** The profile's own program must not be a guarded command (a profile that starts `ssh`
 * would hand whoever may start it a login elsewhere), unless guarded_command_allow names it
 * for this session. */
export function requireUnguardedProfile(caller: LifecycleCaller, profile: ConfigLaunchProfile, session: string): void {
  const policy = caller.deps.config.input_policy;
  const program = commandName(profile.command[0]!);
  const allowed = policy.guarded_command_allow.filter((e) => e.session === session).flatMap((e) => e.commands);
  if (policy.guarded_commands.some((g) => nameIs(program, g)) && !allowed.some((a) => nameIs(program, a))) {
    throw new AppError('COMMAND_GUARDED', `the profile runs ${JSON.stringify(program)}, a guarded command`);
  }
}

/** Room for one more session of `profile` on its host: its `max_sessions` in all, and its
 * `max_sessions_per_client` started by this caller (RUNNING rows of the registry, which
 * recovery keeps current); else QUOTA_EXCEEDED. */
export function requireSessionRoom(caller: LifecycleCaller, profile: ConfigLaunchProfile): void {
  const running = caller.deps.lifecycle.store.runningOn(profile.node ?? null).filter((s) => s.profile === profile.name);
  if (profile.max_sessions !== undefined && running.length >= profile.max_sessions) {
    throw new AppError('QUOTA_EXCEEDED', `profile ${profile.name} already runs ${running.length} sessions (max_sessions ${profile.max_sessions}): close one first`);
  }
  const mine = running.filter((s) => s.startedBy === caller.actor).length;
  if (mine >= profile.max_sessions_per_client) {
    throw new AppError('QUOTA_EXCEEDED', `you already run ${mine} sessions of profile ${profile.name} (max_sessions_per_client ${profile.max_sessions_per_client}): close one first`);
  }
}

/** The real directory to start in: the requested one (or the first root), with symlinks
 * resolved ON the host the session starts on, under one of the profile's roots (also
 * resolved there). */
export async function resolveLaunchCwd(host: LaunchHost, profile: ConfigLaunchProfile, requested: string | undefined): Promise<string> {
  const cwd = requested ?? profile.roots[0]!;
  const syntax = checkRequestedCwd(cwd);
  if (syntax) refuse(syntax);
  const [real, ...resolvedRoots] = await host.on(() => host.realDirectories([cwd, ...profile.roots]));
  const roots = resolvedRoots.filter((r): r is string => r !== null && r !== undefined);
  const where = host.node === undefined ? '' : ` on node ${host.node}`;
  if (real === null || real === undefined || !cwdUnderRoots(real, roots)) {
    throw new AppError('LAUNCH_NOT_ALLOWED', `cwd is not an existing directory${where} under the profile's roots (symlinks resolved${where})`);
  }
  // The resolved path goes to tmux (-c is format-expanded): hold it to the same rule.
  const resolved = checkRequestedCwd(real);
  if (resolved) refuse(resolved);
  return real;
}

/** Gate 4: the live session under exactly `name` on `host`, if it is the one the caller
 * saw and may be closed or restarted; with its managed record when a profile started it.
 * A node's session ids are `node:$3` to callers (a bare `$3` is taken too: the node is in
 * the session's name). */
export async function requireClosable(
  caller: LifecycleCaller,
  host: LaunchHost,
  name: string,
  expectSessionId: string,
  opts: { needsProfile: boolean },
): Promise<{ found: SessionFacts; managed: ManagedSession | undefined }> {
  const { deps } = caller;
  const protectedNames = deps.config.session_lifecycle.protected_sessions;
  if (isSensitiveName(name) || protectedNames.includes(name) || protectedNames.includes(host.qualified(name))) {
    throw new AppError('LAUNCH_NOT_ALLOWED', 'sensitive and protected sessions are never closed or restarted');
  }
  const found = await host.on(() => host.tmux.findSession(name));
  if (found === null) throw new AppError('SESSION_NOT_FOUND', 'no session has exactly that name');
  if (host.qualified(found.sessionId) !== expectSessionId && found.sessionId !== expectSessionId) {
    throw new AppError('IDENTITY_CHANGED', 'the session under that name is not the one you saw (its session_id differs)', 'Call terminal_list_sessions, check the session, and pass its current session_id.');
  }
  // The same decision as a send on this session: a session the caller may not type into
  // is not closed or restarted either (issue 45).
  await host.on(() => host.checkInputTarget(name));
  const managed = deps.lifecycle.store.byIdentity(found.serverPid, host.qualified(found.sessionId), found.created);
  if (managed === undefined || managed.state !== 'RUNNING') {
    if (opts.needsProfile || !deps.config.session_lifecycle.close_unmanaged) throw new AppError('LAUNCH_NOT_ALLOWED', 'this session was not started by a launch profile');
    // Operator allowed more: still only a session the input policy lets this caller drive.
    host.checkInputName(name);
  }
  const pane = found.activePane;
  if (pane === null) throw new AppError('SESSION_NOT_FOUND', 'the session has no pane');
  const processes = await host.on(() => host.processTree(pane.panePid, pane.currentCommand));
  if (processes.source === 'unreadable') throw new AppError('COMMAND_GUARDED', "the pane's processes could not be read");
  const policy = deps.config.input_policy;
  const allowed = policy.guarded_command_allow.filter((e) => e.session === name).flatMap((e) => e.commands);
  const guarded = firstGuardedCommand(processes, policy.guarded_commands, allowed);
  if (guarded !== null) throw new AppError('COMMAND_GUARDED', `the session is running ${JSON.stringify(guarded)}, a guarded command`);
  return { found, managed: managed?.state === 'RUNNING' ? managed : undefined };
}
