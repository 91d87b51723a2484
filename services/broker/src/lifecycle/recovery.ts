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
 * On nodes too (docs/nodes.md): each node's rows (the lifecycle store's `node`) are
 * reconciled against that node's tmux, on its control client's notifications, and only
 * while the node is connected and lists its sessions: a node that is down or does not
 * answer says nothing about its sessions, so nothing is counted dead then (they are looked
 * at again when it is back). A node whose tmux server was replaced (another server pid)
 * lost its sessions with the server: those rows are DIED, never restarted. A restart on a
 * node goes through the node as a client's start does (launch-host.ts); a node that is
 * down by then leaves the row DIED with the reason.
 */
import type { SocketRole } from '@terminal-mcp/contract';
import type { ManagedSession } from '../effects/store/lifecycle-store.js';
import type { SessionsChange } from '../effects/tmux/types.js';
import { principalOf } from '../policy/authority.js';
import { decideRecovery, findProfile, isRefusal } from '../policy/launch.js';
import { launchSession } from './launch-session.js';
import { withLifecycleAudit } from './lifecycle-audit.js';
import type { LifecycleCaller, LifecycleDeps } from './lifecycle-deps.js';
import { qualify } from '../nodes/node-names.js';
import { launchHost } from './launch-host.js';
import { resolveLaunchCwd } from './lifecycle-gates.js';

const HOUR_MS = 3_600_000;
const ACTOR = 'recovery';

/** A row's session name on its host (rows name a node's sessions `node:name`). */
const bareName = (row: ManagedSession): string => (row.node === null ? row.name : row.name.slice(row.node.length + 1));

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
        if ((profile.node ?? null) !== row.node) throw new Error('its profile no longer starts on that host');
        const host = launchHost(deps.hosts.of(row.node ?? undefined), row.node ?? undefined);
        const name = bareName(row);
        const cwd = await resolveLaunchCwd(host, profile, row.cwd);
        if ((await host.on(() => host.tmux.findSession(name))) !== null) throw new Error('another session took the name');
        audit.begin(`recover profile=${profile.name}${row.node === null ? '' : ` node=${row.node}`} cwd=${cwd}`);
        const started = await launchSession(deps, host, { profile, name, cwd, actor: ACTOR, previousId: row.id });
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
    const running = store.runningOn(null);
    if (running.length === 0) return;
    if (serverGone) {
      for (const row of running) died(row, true);
      return;
    }
    const listing = await deps.tmux.listSessions();
    const alive = new Set(listing.map((s) => `${s.serverPid}/${s.sessionId}/${s.created}`));
    for (const row of running) if (!alive.has(`${row.serverPid}/${row.sessionId}/${row.sessionCreated}`)) died(row, false);
  }

  /** A node's pass: only a connected node's own listing says a session died. */
  async function nodePass(node: string): Promise<void> {
    if (stopped) return;
    const running = store.runningOn(node);
    const n = deps.nodes?.get(node);
    if (running.length === 0 || n === undefined || n.tmux.state !== 'connected') return;
    const listing = await n.tmux.listSessions();
    const serverPid = n.tmux.connectionFacts().serverPid;
    const alive = new Set(listing.map((s) => `${s.serverPid}/${qualify(node, s.sessionId)}/${s.created}`));
    for (const row of running) {
      if (alive.has(`${row.serverPid}/${row.sessionId}/${row.sessionCreated}`)) continue;
      // Another server now (its pid known and different): the session went with the old one.
      died(row, serverPid !== undefined && serverPid !== row.serverPid);
    }
  }

  const queue = (what: () => Promise<void>): Promise<void> => {
    chain = chain.then(what).catch((err: unknown) => deps.log.warn({ event: 'lifecycle.recovery_pass_failed', err: (err as Error).message }, 'recovery pass failed'));
    return chain;
  };
  const nodeNames = deps.nodes?.names().filter((node) => deps.lifecycle.nodes?.has(node) === true) ?? [];
  const check = (serverGone = false): Promise<void> => queue(() => pass(serverGone));
  const checkAll = (): Promise<void> => {
    for (const node of nodeNames) void queue(() => nodePass(node));
    return check();
  };

  const unsubscribes = [
    deps.tmux.onSessionsChanged((change: SessionsChange) => check(change.cause === 'server-gone')),
    ...nodeNames.map((node) => deps.nodes!.get(node)!.tmux.onSessionsChanged(() => queue(() => nodePass(node)))),
  ];
  deps.lifecycle.afterStart = () => void checkAll();
  void checkAll();
  return {
    check: () => checkAll(),
    stop() {
      stopped = true;
      for (const unsubscribe of unsubscribes) unsubscribe();
      for (const t of timers) clearTimeout(t);
      timers.clear();
      deps.lifecycle.afterStart = undefined;
    },
  };
}
