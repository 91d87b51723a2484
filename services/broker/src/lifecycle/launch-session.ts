/** Creating a profile's session, shared by start, restart and recovery: tmux creates it
 * (effects/tmux/session-lifecycle.ts), the registry records it (linked to the session it
 * replaces), and the start waits until the profile's program holds the pane. */
import { AppError } from '@terminal-mcp/contract';
import type { LaunchProfile } from '../config/launch-profile-schema.js';
import type { ManagedSession } from '../effects/store/lifecycle-store.js';
import { commandName, nameIs } from '../policy/foreground.js';
import { readyCommandOf } from '../policy/launch.js';
import type { LifecycleDeps } from './lifecycle-deps.js';

/** How long a start waits for the profile's program to reach the foreground. */
const READY_WAIT_MS = 10_000;
const READY_POLL_MS = 100;

export async function launchSession(
  deps: Pick<LifecycleDeps, 'lifecycle' | 'log'>,
  spec: { profile: LaunchProfile; name: string; cwd: string; actor: string; previousId: number | null },
): Promise<ManagedSession> {
  const { profile } = spec;
  const created = await deps.lifecycle.tmux.create({ name: spec.name, cwd: spec.cwd, width: profile.width, height: profile.height, env: profile.env, command: profile.command });
  if (!created.ok) {
    if (created.reason === 'duplicate') throw new AppError('SESSION_EXISTS', 'a session already has that name');
    deps.log.warn({ event: 'lifecycle.create_failed', profile: profile.name, detail: created.detail }, 'tmux could not create the session');
    throw new AppError('TMUX_UNAVAILABLE', 'tmux could not create the session');
  }
  const s = created.session;
  const managed = deps.lifecycle.store.recordStart(
    { profile: profile.name, name: spec.name, serverPid: s.serverPid, sessionId: s.sessionId, sessionCreated: s.sessionCreated, paneId: s.paneId, cwd: spec.cwd, startedBy: spec.actor, previousId: spec.previousId },
    Date.now(),
  );
  deps.lifecycle.afterStart?.();
  deps.log.info({ event: 'lifecycle.started', profile: profile.name, session: spec.name, session_id: s.sessionId, previous: spec.previousId }, 'session started from a launch profile');
  return managed;
}

/** The pane's foreground program once it is the profile's ready command (or whatever runs
 * when the wait ends); null when the session is gone. */
export async function waitForProgram(deps: Pick<LifecycleDeps, 'tmux'>, profile: LaunchProfile, managed: ManagedSession): Promise<string | null> {
  const ready = readyCommandOf(profile);
  const deadline = Date.now() + READY_WAIT_MS;
  let last: string | null = null;
  for (;;) {
    // The session's listing (not a pane read: those belong to the reader and delivery).
    const session = await deps.tmux.findSession(managed.name);
    if (session === null || session.sessionId !== managed.sessionId || session.activePane === null) return null;
    last = session.activePane.currentCommand;
    if (nameIs(commandName(last), ready) || Date.now() >= deadline) return last;
    await new Promise((r) => setTimeout(r, READY_POLL_MS));
  }
}
