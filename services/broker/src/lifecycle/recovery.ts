/**
 * Recovery of sessions whose profile says `recover: on_exit`. It follows tmux's session
 * notifications (adapter `onSessionsChanged`, coalesced; no polling): a session the
 * registry believes RUNNING that tmux no longer lists has died (a close or restart marks
 * its row first, so those are never deaths). Each death is recorded (registry event
 * `died`, supervisor event `session_died`); then policy/launch.ts `decideRecovery` says
 * whether to start the profile again after a backoff, or to stop: at most
 * `max_restarts_per_hour` restarts of one session's chain in any hour, after which the row
 * is CRASH_LOOP and a `crash_loop` supervisor event says so. A dead tmux server is not
 * restarted (starting a session would start a new server): those rows are only DIED.
 *
 * A restart here is audited like a client's (tool `session_recovery`, actor `recovery`),
 * its row written before tmux is asked.
 *
 * This host's sessions only (the lifecycle store's rows without a node): it follows this
 * host's tmux notifications, and a profile that starts on a node cannot say
 * `recover: on_exit` (the config refuses it).
 */
import type { SocketRole } from '@terminal-mcp/contract';
import type { ManagedSession } from '../effects/store/lifecycle-store.js';
import type { SessionsChange } from '../effects/tmux/types.js';
import { principalOf } from '../policy/authority.js';
import { decideRecovery, findProfile, isRefusal } from '../policy/launch.js';
import { launchSession } from './launch-session.js';
import { withLifecycleAudit } from './lifecycle-audit.js';
import type { LifecycleCaller, LifecycleDeps } from './lifecycle-deps.js';
import { localHost } from './launch-host.js';
import { resolveLaunchCwd } from './lifecycle-gates.js';

const HOUR_MS = 3_600_000;
const ACTOR = 'recovery';

export interface SessionRecovery {
  /** Looks for deaths now (after a start, which may have died before it was recorded). */
  check(): Promise<void>;
  stop(): void;
}

export function startRecovery(deps: LifecycleDeps): SessionRecovery {
  const store = deps.lifecycle.store;
  const timers = new Set<NodeJS.Timeout>();
  let stopped = false;
  let chain: Promise<void> = Promise.resolve();
  // The broker's own principal: it acts for the operator's configuration, on no client's behalf.
  const caller: LifecycleCaller = { role: 'gateway' as SocketRole, actor: ACTOR, principal: principalOf('gateway', 'socket', ACTOR), deps };
  // This host only: a profile with a node cannot say `recover: on_exit` (config/launch-profile-schema.ts).
  const here = localHost(deps);

  function event(row: ManagedSession, type: 'session_died' | 'session_recovered' | 'crash_loop', reason: string, state: 'ERROR' | 'RUNNING' | 'BLOCKED'): void {
    try {
      deps.lifecycle.events.addEvent(
        {
          watch_id: 0,
          watch_key: `lifecycle:${row.name}`,
          kind: 'session',
          target: row.name,
          at: Date.now(),
          previous_state: null,
          state,
          event_type: type,
          reason,
          output_preview: '',
          output_hash: '',
          iteration_count: 0,
          metadata: JSON.stringify({ profile: row.profile, session_id: row.sessionId }),
        },
        deps.config.supervisor.event_retention,
      );
    } catch (err) {
      deps.log.warn({ event: 'lifecycle.event_failed', err: (err as Error).message }, 'could not record a lifecycle supervisor event');
    }
  }

  async function restart(row: ManagedSession): Promise<void> {
    const current = store.byId(row.id);
    if (stopped || current?.state !== 'RESTARTING') return;
    const profile = findProfile(deps.config.launch_profiles, row.profile);
    try {
      if (isRefusal(profile)) throw new Error(profile.message);
      const next = await withLifecycleAudit(caller, 'session_recovery', async (audit) => {
        audit.session(row.name);
        const cwd = await resolveLaunchCwd(here, profile, row.cwd);
        if ((await deps.tmux.findSession(row.name)) !== null) throw new Error('another session took the name');
        audit.begin(`recover profile=${profile.name} cwd=${cwd}`);
        const started = await launchSession(deps, here, { profile, name: row.name, cwd, actor: ACTOR, previousId: row.id });
        audit.finish('SENT', null, `RESTARTED ${started.managed.sessionId}`);
        return started.managed;
      });
      event(next, 'session_recovered', `restarted by recovery (profile ${profile.name})`, 'RUNNING');
    } catch (err) {
      const reason = `recovery could not restart the session: ${(err as Error).message}`;
      store.transition(row.id, 'DIED', 'recover_failed', ACTOR, reason.slice(0, 300), Date.now());
      event(row, 'session_died', reason, 'ERROR');
    }
  }

  function died(row: ManagedSession, serverGone: boolean): void {
    const now = Date.now();
    if (serverGone) {
      store.transition(row.id, 'DIED', 'died', ACTOR, 'the tmux server is gone', now);
      event(row, 'session_died', 'the tmux server is gone; not restarted', 'ERROR');
      return;
    }
    const profile = findProfile(deps.config.launch_profiles, row.profile);
    const restarts = store.restartsSince(row.id, now - HOUR_MS);
    const decision = isRefusal(profile) ? { restart: false as const, reason: 'its profile is no longer configured' } : decideRecovery(profile, restarts);
    if (!decision.restart) {
      const loop = !isRefusal(profile) && profile.recover === 'on_exit';
      store.transition(row.id, loop ? 'CRASH_LOOP' : 'DIED', 'died', ACTOR, decision.reason, now);
      if (loop) store.note(row.id, 'crash_loop', ACTOR, decision.reason, now);
      event(row, loop ? 'crash_loop' : 'session_died', `session ${row.name} exited; ${decision.reason}`, loop ? 'BLOCKED' : 'ERROR');
      deps.log.warn({ event: loop ? 'lifecycle.crash_loop' : 'lifecycle.died', session: row.name, profile: row.profile, restarts }, decision.reason);
      return;
    }
    store.transition(row.id, 'RESTARTING', 'died', ACTOR, `restarting in ${decision.delayMs} ms`, now);
    event(row, 'session_died', `session ${row.name} exited; restarting in ${decision.delayMs} ms (${restarts + 1} of ${(profile as { max_restarts_per_hour: number }).max_restarts_per_hour} this hour)`, 'ERROR');
    const timer = setTimeout(() => {
      timers.delete(timer);
      chain = chain.then(() => restart(row));
    }, decision.delayMs);
    timer.unref();
    timers.add(timer);
  }

  async function pass(serverGone: boolean): Promise<void> {
    if (stopped) return;
    const running = store.runningHere();
    if (running.length === 0) return;
    if (serverGone) {
      for (const row of running) died(row, true);
      return;
    }
    const listing = await deps.tmux.listSessions();
    const alive = new Set(listing.map((s) => `${s.serverPid}/${s.sessionId}/${s.created}`));
    for (const row of running) if (!alive.has(`${row.serverPid}/${row.sessionId}/${row.sessionCreated}`)) died(row, false);
  }

  const check = (serverGone = false): Promise<void> => {
    chain = chain.then(() => pass(serverGone)).catch((err: unknown) => deps.log.warn({ event: 'lifecycle.recovery_pass_failed', err: (err as Error).message }, 'recovery pass failed'));
    return chain;
  };

  const unsubscribe = deps.tmux.onSessionsChanged((change: SessionsChange) => check(change.cause === 'server-gone'));
  deps.lifecycle.afterStart = () => void check();
  void check();
  return {
    check: () => check(),
    stop() {
      stopped = true;
      unsubscribe();
      for (const t of timers) clearTimeout(t);
      timers.clear();
      deps.lifecycle.afterStart = undefined;
    },
  };
}
