/**
 * The supervisor's engine: a watch evaluator (evaluator.ts: what a watch's screen means,
 * one evaluation of a watch at a time) driven by a scheduler (scheduler.ts: when to look),
 * plus the waiters of supervisor_wait_events (event-waiters.ts). A watch is read exactly
 * as terminal_status reads a session (the read gate, the redacted screen, statusOf).
 *
 * Narrow dependencies (passed in, not the broker's deps bag) so the capability can move.
 */
import type { SupervisorEvent, SessionStatusResult } from '@terminal-mcp/contract';
import type { Logger } from 'pino';
import type { BindingRecord } from '../effects/store/bindings-store.js';
import type { EventRow, SupervisorStore, WatchRow } from '../effects/store/supervisor-store.js';
import type { PaneWatcher } from '../effects/tmux/pane-watch.js';
import type { ReadableTarget } from '../access/target.js';
import type { TmuxAdapter } from '../effects/tmux/types.js';
import type { SessionReader } from '../reads/session-reader.js';
import { seedConfigWatches } from './config-watches.js';
import { createEventWaiters } from './event-waiters.js';
import { createWatchEvaluator, refOf } from './evaluator.js';
import type { Observation } from './evidence.js';
import type { PaneIdentity } from '../policy/identity.js';
import { createWatchScheduler } from './scheduler.js';
import type { VerifierOutcome } from './verify.js';
import type { LimitParks, LimitResumeSend } from './limit-parks.js';

import type { SupervisorConfig } from './types.js';

export type { SupervisorConfig };

export interface SupervisorEngineDeps {
  store: SupervisorStore;
  reader: Pick<SessionReader, 'resolve' | 'follow'>;
  tmux: Pick<TmuxAdapter, 'listSessions'>;
  bindings: (name: string) => BindingRecord | undefined;
  config: SupervisorConfig;
  log: Pick<Logger, 'info' | 'warn' | 'debug'>;
  /** Absent (tests, no tmux): no output subscriptions; run_once and timers still work. */
  paneWatch?: PaneWatcher | undefined;
  /** Watches whose pane this host's pane watcher cannot follow (another host's session,
   * nodes/node-supervisor.ts), and how often each is looked at instead. */
  remote?: { is(watch: Pick<WatchRow, 'kind' | 'target'>): boolean; tickMs: number } | undefined;
  /** Runs a watch's verifier policy outside the pane (verify.ts). */
  verify?: ((watch: WatchRow) => Promise<VerifierOutcome>) | undefined;
  /** Told of every recorded event (the webhook). Must not throw. */
  notify?: ((event: SupervisorEvent) => void) | undefined;
  now?: () => number;
  /** The guarded, audited send a usage-limit resume types through (input/send.ts sendText
   * under the broker's supervisor identity), once the composition root has wired it. */
  limitSend?: (() => LimitResumeSend | undefined) | undefined;
  /** The random share of resume_after_limit.extra_delay_seconds (default Math.random). */
  random?: (() => number) | undefined;
}

export interface SupervisorEngine {
  readonly deps: SupervisorEngineDeps;
  /** The supervisor's store (supervisor.db): watches, events, policies, actions, parks. */
  readonly store: SupervisorStore;
  /** The `supervisor:` config the engine runs under. */
  readonly config: SupervisorConfig;
  /** The engine's clock (injected by tests), epoch ms. */
  now(): number;
  /** Starts the automatic evaluation when supervisor.enabled; else a no-op. */
  start(): void;
  stop(): void;
  running(): boolean;
  /** One deterministic pass over every enabled watch (counts as a poll). */
  runOnce(): Promise<EventRow[]>;
  /** Evaluate one watch now (after supervisor_watch). */
  evaluate(watchId: number, poll: boolean): Promise<EventRow[]>;
  /** Re-read which watches are enabled (after watch/unwatch): subscriptions and timer follow. */
  refresh(): void;
  /** Resolves on the next recorded event, the deadline or the abort. */
  nextEvent(untilMs: number, signal?: AbortSignal): Promise<unknown>;
  /** Where a watch's target is now, through the read gate (throws its errors). */
  resolve(watch: Pick<WatchRow, 'kind' | 'target'>): Promise<ReadableTarget>;
  /** The watch's current screen, as an observation (for decision-time checks). */
  look(watch: WatchRow): Promise<{ obs: Observation; status: SessionStatusResult; identity: PaneIdentity }>;
  /** Agents parked at a usage limit (limit-parks.ts). */
  readonly parks: LimitParks;
}

export function createSupervisorEngine(deps: SupervisorEngineDeps): SupervisorEngine {
  const { store, config, log } = deps;
  const clock = deps.now ?? Date.now;
  const waiters = createEventWaiters();
  const enabledWatches = () => store.listWatches().filter((w) => w.enabled === 1);
  const evaluator = createWatchEvaluator({
    store,
    reader: deps.reader,
    config,
    log,
    now: clock,
    verify: deps.verify,
    recorded: (event) => {
      waiters.fire();
      try {
        deps.notify?.(event);
      } catch {
        // The webhook is best effort; an event is recorded regardless.
      }
    },
    limitSend: () => deps.limitSend?.(),
    random: deps.random,
    looked: (watch, sessionId) => (deps.remote?.is(watch) === true ? scheduler.tick(watch, deps.remote.tickMs) : scheduler.follow(watch, sessionId)),
  });
  const scheduler = createWatchScheduler({
    config,
    log,
    now: clock,
    paneWatch: deps.paneWatch,
    evaluate: (id, poll, source) => evaluator.evaluate(id, poll, source),
    pass,
    enabledWatches,
    forget: (id) => evaluator.forget(id),
  });

  async function pass(source: string): Promise<EventRow[]> {
    await seedConfigWatches(deps, clock()).catch((err: unknown) => log.warn({ event: 'supervisor.seed_failed', err: String(err) }, 'could not seed config watches'));
    const events: EventRow[] = [];
    for (const w of store.listWatches()) if (w.enabled === 1) events.push(...(await scheduler.run(w.id, true, source)));
    events.push(...(await evaluator.parks.resumeDue()));
    scheduler.refresh();
    return events;
  }

  return {
    deps,
    store,
    config: deps.config,
    now: () => clock(),
    /** A session watch follows the name; a binding watch reads the pane the binding pinned
     * (not the session's active one), refused once the server, session or pane is another. */
    resolve: (watch) => deps.reader.resolve(refOf(watch)),
    look: (watch) => evaluator.look(watch),
    parks: evaluator.parks,
    start() {
      scheduler.start();
      // Parks wait for their reset whenever the broker runs: a restart keeps them.
      if (config.enabled) evaluator.parks.start();
    },
    stop() {
      scheduler.stop();
      evaluator.parks.stop();
      evaluator.clear();
      waiters.fire();
    },
    running: () => scheduler.running(),
    runOnce: () => pass('run_once'),
    evaluate: (id, poll) => scheduler.run(id, poll, 'manual'),
    refresh: () => scheduler.refresh(),
    nextEvent: (untilMs, signal) => waiters.next(untilMs, clock, signal),
  };
}
