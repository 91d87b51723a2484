/** Creating a profile's session, shared by start, restart and recovery: tmux creates it on
 * the profile's host (effects/tmux/session-lifecycle.ts; a node's through its ssh channel),
 * the registry records it (linked to the session it replaces; a node's under `node:name`
 * and `node:$id`), and the start waits until the profile's program holds the pane. */
import { AppError } from '@terminal-mcp/contract';
import type { LaunchProfile } from '../config/launch-profile-schema.js';
import type { ManagedSession } from '../effects/store/lifecycle-store.js';
import { commandName, nameIs } from '../policy/foreground.js';
import { readyCommandOf } from '../policy/launch.js';
import type { LaunchHost } from './launch-host.js';
import type { LifecycleDeps } from './lifecycle-deps.js';

/** How long a start waits for the profile's program to reach the foreground. */
const READY_WAIT_MS = 10_000;
const READY_POLL_MS = 100;

/** A started session: its record, and its name and id on its host (what tmux knows). */
export interface LaunchedSession {
  managed: ManagedSession;
  name: string;
  sessionId: string;
}

export async function launchSession(
  deps: Pick<LifecycleDeps, 'lifecycle' | 'log'>,
  host: LaunchHost,
  spec: { profile: LaunchProfile; name: string; cwd: string; actor: string; previousId: number | null },
): Promise<LaunchedSession> {
  const { profile } = spec;
  const created = await host.on(async () => {
    const outcome = await host.sessions.create({ name: spec.name, cwd: spec.cwd, width: profile.width, height: profile.height, env: profile.env, command: profile.command });
    // No answer (a node's link broke): the session may exist; as the other failures, the
    // caller sees TMUX_UNAVAILABLE (NODE_UNAVAILABLE once `on` finds the node down).
    if (!outcome.ok && outcome.reason === 'no_answer') {
      throw new AppError('TMUX_UNAVAILABLE', `tmux gave no answer: the session may or may not have been created; list the sessions before starting it again`);
    }
    return outcome;
  });
  if (!created.ok) {
    if (created.reason === 'duplicate') throw new AppError('SESSION_EXISTS', 'a session already has that name');
    deps.log.warn({ event: 'lifecycle.create_failed', profile: profile.name, node: host.node, detail: created.detail }, 'tmux could not create the session');
    throw new AppError('TMUX_UNAVAILABLE', 'tmux could not create the session');
  }
  const s = created.session;
  const managed = deps.lifecycle.store.recordStart(
    {
      profile: profile.name,
      node: host.node ?? null,
      name: host.qualified(spec.name),
      serverPid: s.serverPid,
      sessionId: host.qualified(s.sessionId),
      sessionCreated: s.sessionCreated,
      paneId: s.paneId,
      cwd: spec.cwd,
      startedBy: spec.actor,
      previousId: spec.previousId,
    },
    Date.now(),
  );
  deps.lifecycle.afterStart?.();
  deps.log.info({ event: 'lifecycle.started', profile: profile.name, session: managed.name, session_id: managed.sessionId, previous: spec.previousId }, 'session started from a launch profile');
  return { managed, name: spec.name, sessionId: s.sessionId };
}

/** The pane's foreground program once it is the profile's ready command (or whatever runs
 * when the wait ends); null when the session is gone (or its node stopped answering). */
export async function waitForProgram(host: LaunchHost, profile: LaunchProfile, started: LaunchedSession): Promise<string | null> {
  const ready = readyCommandOf(profile);
  const deadline = Date.now() + READY_WAIT_MS;
  let last: string | null = null;
  for (;;) {
    // The session's listing (not a pane read: those belong to the reader and delivery).
    const session = await host.tmux.findSession(started.name).catch(() => null);
    if (session === null || session.sessionId !== started.sessionId || session.activePane === null) return null;
    last = session.activePane.currentCommand;
    if (nameIs(commandName(last), ready) || Date.now() >= deadline) return last;
    await new Promise((r) => setTimeout(r, READY_POLL_MS));
  }
}
