/**
 * The supervisor's engine: evaluates watches and records their events. A watch is read
 * exactly as terminal_status reads a session (the read gate, the redacted screen,
 * statusOf), then evidence.ts and transition.ts decide its state and events.
 *
 * Event-driven, not polling: with supervisor.enabled, each enabled watch subscribes to
 * its pane's output (the same control-mode watcher as terminal_wait_for_state) and is
 * evaluated after a burst of output (coalesced); a one-shot timer re-evaluates it when
 * the quiet time alone would change its state (RUNNING → UNKNOWN → IDLE), and the slow
 * poll_interval_seconds timer counts iterations and seeds config watches. Every timer is
 * unref'd, and none runs while no watch is enabled: an idle broker does no work.
 * Evaluations of one watch run one at a time.
 *
 * Narrow dependencies (passed in, not the broker's deps bag) so the capability can move.
 */
import { readAppErrorData, type SupervisorEvent, type SessionStatusResult } from '@terminal-mcp/contract';
import type { Logger } from 'pino';
import type { BrokerConfig } from '../config/schema.js';
import type { BindingRecord } from '../effects/store/bindings-store.js';
import type { EventRow, SupervisorStore, WatchRow } from '../effects/store/supervisor-store.js';
import type { PaneWatcher, PaneWatchSubscription } from '../effects/tmux/pane-watch.js';
import type { ReadableTarget, TargetRef } from '../access/target.js';
import type { TmuxAdapter } from '../effects/tmux/types.js';
import { matchesAny } from '../policy/access.js';
import { RECENT_OUTPUT_SECONDS } from '../policy/status.js';
import { statusOf, type ContinuedRead, type ReadCallerId, type SessionReader } from '../reads/session-reader.js';
import { observe, type Observation } from './evidence.js';
import { stepWatch, type PlannedEvent } from './transition.js';
import { eventView } from './views.js';
import type { VerifierOutcome } from './verify.js';

export type SupervisorConfig = BrokerConfig['supervisor'];

export interface SupervisorEngineDeps {
  store: SupervisorStore;
  reader: Pick<SessionReader, 'resolve' | 'follow'>;
  tmux: Pick<TmuxAdapter, 'listSessions'>;
  bindings: (name: string) => BindingRecord | undefined;
  config: SupervisorConfig;
  log: Pick<Logger, 'info' | 'warn' | 'debug'>;
  /** Absent (tests, no tmux): no output subscriptions; run_once and timers still work. */
  paneWatch?: PaneWatcher | undefined;
  /** Runs a watch's verifier policy outside the pane (verify.ts). */
  verify?: ((watch: WatchRow) => Promise<VerifierOutcome>) | undefined;
  /** Told of every recorded event (the webhook). Must not throw. */
  notify?: ((event: SupervisorEvent) => void) | undefined;
  now?: () => number;
}

export interface SupervisorEngine {
  readonly deps: SupervisorEngineDeps;
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
  look(watch: WatchRow): Promise<{ obs: Observation; status: SessionStatusResult }>;
}

/** Errors that mean the target is gone or no longer readable: the watch stops. */
const TARGET_GONE = new Set(['SESSION_NOT_FOUND', 'SESSION_NOT_ALLOWED', 'READ_DISABLED', 'BINDING_NOT_FOUND', 'IDENTITY_CHANGED']);
const COALESCE_MS = 100;
/** Who the supervisor's reads are recorded for in the read audit. */
const SUPERVISOR: ReadCallerId = { role: 'broker', actor: 'broker:supervisor' };
const refOf = (watch: Pick<WatchRow, 'kind' | 'target'>): TargetRef => (watch.kind === 'binding' ? { binding: watch.target } : { session: watch.target });

export function createSupervisorEngine(deps: SupervisorEngineDeps): SupervisorEngine {
  const { store, config, log } = deps;
  const clock = deps.now ?? Date.now;
  /** Everyone waiting for the next event (supervisor_wait_events callers). */
  const waiters = new Set<() => void>();
  const fireWaiters = () => {
    for (const w of [...waiters]) w();
  };
  const chains = new Map<number, Promise<unknown>>();
  const subscriptions = new Map<number, { sessionId: string; sub: PaneWatchSubscription }>();
  const pending = new Map<number, NodeJS.Timeout>();
  const lastRun = new Map<number, number>();
  const quietTimers = new Map<number, NodeJS.Timeout>();
  const verifying = new Set<number>();
  /** Each watch's continued read (reads/session-reader.ts): one read audit row per watch
   * and pane, not one per evaluation. */
  const reads = new Map<number, ContinuedRead>();
  let pollTimer: NodeJS.Timeout | undefined;
  let started = false;

  /** A session watch follows the name; a binding watch reads the pane the binding pinned
   * (not the session's active one), refused once the server, session or pane is another. */
  const resolve = (watch: Pick<WatchRow, 'kind' | 'target'>) => deps.reader.resolve(refOf(watch));

  async function look(watch: WatchRow) {
    let read = reads.get(watch.id);
    if (read === undefined) {
      read = deps.reader.follow(SUPERVISOR, 'supervisor', refOf(watch));
      reads.set(watch.id, read);
    }
    const { target, lines } = await read.screen();
    const status = statusOf(target, lines, clock());
    subscribe(watch, target.identity.sessionId);
    return { obs: observe(status, lines, watch.done_marker, config.idle_threshold_seconds), status };
  }

  function record(watch: WatchRow, planned: PlannedEvent, obs: Pick<Observation, 'hash' | 'preview'>, iteration: number, metadata: Record<string, string | number | boolean | null>): EventRow {
    const row = store.addEvent(
      {
        watch_id: watch.id,
        watch_key: watch.watch_key,
        kind: watch.kind,
        target: watch.target,
        at: clock(),
        previous_state: planned.previous,
        state: planned.state,
        event_type: planned.type,
        reason: planned.reason,
        output_preview: obs.preview,
        output_hash: obs.hash,
        iteration_count: iteration,
        metadata: JSON.stringify(metadata),
      },
      config.event_retention,
    );
    fireWaiters();
    try {
      deps.notify?.(eventView(row));
    } catch {
      // The webhook is best effort; an event is recorded regardless.
    }
    return row;
  }

  /** Autonomous watches (approved_auto_continue, with v2 on) need the verifier to reach
   * VERIFIED_DONE; every other watch's DONE is final as it is. */
  function autonomous(watch: WatchRow): boolean {
    return config.v2_enabled && store.policy(watch.id)?.mode === 'approved_auto_continue';
  }

  async function verifyDone(watch: WatchRow, obs: Observation, iteration: number, source: string): Promise<EventRow[]> {
    const events: EventRow[] = [];
    const verifier = store.verifier(watch.id);
    const finish = (state: 'VERIFIED_DONE' | 'FAILED' | 'BLOCKED', reason: string) => {
      const stops = state !== 'VERIFIED_DONE';
      store.updateWatch(watch.id, { state, last_output_hash: obs.hash, ...(stops ? { enabled: 0, disabled_reason: reason } : {}) }, clock());
      if (stops) store.updatePolicy(watch.id, { blocked_reason: reason }, clock());
      else store.updatePolicy(watch.id, { auto_action_count: 0, first_action_at: null, same_prompt_count: 0, last_prompt_hash: null }, clock());
      const type = state === 'VERIFIED_DONE' ? 'completed' : 'state_changed';
      events.push(record(watch, { type, previous: 'VERIFYING', state, reason }, obs, iteration, { source, verifier: verifier !== undefined }));
    };
    if (verifier === undefined || deps.verify === undefined) {
      finish('BLOCKED', 'autonomous watch claims DONE but has no verifier policy (supervisor_set_verifier_policy): never verified on prose alone');
      return events;
    }
    if (watch.state !== 'VERIFYING') {
      store.updateWatch(watch.id, { state: 'VERIFYING', last_output_hash: obs.hash }, clock());
      events.push(record(watch, { type: 'state_changed', previous: watch.state, state: 'VERIFYING', reason: `${obs.reason}; running the verifier` }, obs, iteration, { source }));
    }
    verifying.add(watch.id);
    try {
      const outcome = await deps.verify(watch);
      finish(outcome.result === 'passed' ? 'VERIFIED_DONE' : outcome.result === 'failed' ? 'FAILED' : 'BLOCKED', outcome.reason);
    } finally {
      verifying.delete(watch.id);
    }
    return events;
  }

  /** Post-send actions: new output completes them; none within no_progress_limit polls blocks them. */
  function reconcile(watch: WatchRow, obs: Observation, poll: boolean, events: EventRow[]): void {
    const action = store.openAction(watch.id);
    if (action?.state !== 'observing') return;
    const now = clock();
    if (obs.hash !== action.output_hash_at_send) {
      const latest = events.at(-1)?.id ?? store.listEvents({ watchId: watch.id, limit: 1 })[0]?.id ?? null;
      store.casAction(action.id, 'observing', 'completed', { resulting_event_id: latest }, now);
      if (obs.state === 'DONE') store.updatePolicy(watch.id, { auto_action_count: 0, first_action_at: null, same_prompt_count: 0, last_prompt_hash: null }, now);
      return;
    }
    if (!poll) return;
    const checks = action.no_progress_checks + 1;
    const limit = store.policy(watch.id)?.no_progress_limit ?? 3;
    if (checks >= limit) {
      const reason = `no progress: the output did not change in ${checks} checks after the send (no_progress_limit ${limit})`;
      store.casAction(action.id, 'observing', 'blocked', { no_progress_checks: checks, blocked_reason: reason }, now);
      store.updatePolicy(watch.id, { blocked_reason: reason }, now);
    } else {
      store.casAction(action.id, 'observing', 'observing', { no_progress_checks: checks }, now);
    }
  }

  async function evaluateNow(watchId: number, poll: boolean, source: string): Promise<EventRow[]> {
    const watch = store.watchById(watchId);
    if (!watch || watch.enabled !== 1) return [];
    let obs: Observation;
    let status: SessionStatusResult;
    try {
      ({ obs, status } = await look(watch));
    } catch (err) {
      const code = readAppErrorData(err)?.code;
      if (code === undefined || !TARGET_GONE.has(code)) {
        log.warn({ event: 'supervisor.evaluate_failed', watch: watch.watch_key, code }, 'could not evaluate a watch; will retry');
        return [];
      }
      // Same words whether the session is gone or was never readable: nothing about it leaks.
      const reason = `the target is missing or not readable (${code}); the watch stopped`;
      store.updateWatch(watch.id, { enabled: 0, disabled_reason: reason }, clock());
      unsubscribe(watch.id);
      return [record(watch, { type: 'watch_target_missing', previous: watch.state, state: watch.state as PlannedEvent['state'], reason }, { hash: '', preview: '' }, watch.iteration_count, { source, code })];
    }
    const step = stepWatch(
      { state: watch.state, lastOutputHash: watch.last_output_hash, failureCount: watch.failure_count, iterationCount: watch.iteration_count },
      obs,
      poll,
      { sameFailureLimit: config.same_failure_limit, maxIterations: config.max_iterations },
    );
    const events: EventRow[] = [];
    const done = obs.state === 'DONE' && autonomous(watch);
    const rerunVerify = watch.state === 'VERIFYING' && !verifying.has(watch.id);
    if (done && (step.events.some((e) => e.state === 'DONE') || rerunVerify)) {
      store.updateWatch(watch.id, { iteration_count: step.next.iterationCount, failure_count: 0 }, clock());
      events.push(...(await verifyDone({ ...watch, iteration_count: step.next.iterationCount }, obs, step.next.iterationCount, source)));
    } else {
      store.updateWatch(
        watch.id,
        {
          state: step.next.state,
          last_output_hash: step.next.lastOutputHash,
          failure_count: step.next.failureCount,
          iteration_count: step.next.iterationCount,
          ...(step.disable !== null ? { enabled: 0, disabled_reason: step.disable } : {}),
        },
        clock(),
      );
      for (const planned of step.events) events.push(record(watch, planned, obs, step.next.iterationCount, { source }));
      if (step.disable !== null) unsubscribe(watch.id);
    }
    reconcile(watch, obs, poll, events);
    if (step.disable === null) scheduleQuietCheck(watch.id, obs, status);
    return events;
  }

  function evaluate(watchId: number, poll: boolean, source = 'manual'): Promise<EventRow[]> {
    const previous = chains.get(watchId) ?? Promise.resolve();
    const next = previous.then(
      () => evaluateNow(watchId, poll, source),
      () => evaluateNow(watchId, poll, source),
    );
    chains.set(watchId, next);
    void next.finally(() => {
      if (chains.get(watchId) === next) chains.delete(watchId);
    }).catch(() => undefined);
    return next;
  }

  /** Coalesces bursts of output: the first output after a quiet spell is evaluated at
   * once (a prompt is noticed without delay), the rest at most once per COALESCE_MS. */
  function schedule(watchId: number, source: string): void {
    if (pending.has(watchId) || !started) return;
    const wait = Math.max(0, (lastRun.get(watchId) ?? -Infinity) + COALESCE_MS - clock());
    const timer = setTimeout(() => {
      pending.delete(watchId);
      lastRun.set(watchId, clock());
      evaluate(watchId, false, source).catch((err: unknown) => log.warn({ event: 'supervisor.evaluate_failed', err: String(err) }, 'watch evaluation failed'));
    }, wait);
    timer.unref();
    pending.set(watchId, timer);
  }

  /** When only the passing of quiet time can change the state, look again just after it has. */
  function scheduleQuietCheck(watchId: number, obs: Observation, status: SessionStatusResult): void {
    clearTimeout(quietTimers.get(watchId));
    quietTimers.delete(watchId);
    if (!started) return;
    let seconds: number | null = null;
    if (obs.state === 'RUNNING' && !/busy|spinner/.test(obs.reason)) seconds = RECENT_OUTPUT_SECONDS + 1 - status.idle_seconds;
    else if (obs.state === 'UNKNOWN') seconds = config.idle_threshold_seconds - status.idle_seconds + 1;
    if (seconds === null) return;
    const timer = setTimeout(() => {
      quietTimers.delete(watchId);
      schedule(watchId, 'idle_timer');
    }, Math.max(1, seconds) * 1000);
    timer.unref();
    quietTimers.set(watchId, timer);
  }

  function subscribe(watch: WatchRow, sessionId: string): void {
    if (!started || deps.paneWatch === undefined || watch.enabled !== 1) return;
    const current = subscriptions.get(watch.id);
    if (current?.sessionId === sessionId) return;
    current?.sub.unsubscribe();
    try {
      const sub = deps.paneWatch.watch(sessionId, {
        onOutput: () => schedule(watch.id, 'pane_output'),
        onEnd: () => {
          if (subscriptions.get(watch.id)?.sub === sub) subscriptions.delete(watch.id);
          schedule(watch.id, 'pane_output');
        },
      });
      sub.ready.catch(() => {
        if (subscriptions.get(watch.id)?.sub === sub) subscriptions.delete(watch.id);
      });
      subscriptions.set(watch.id, { sessionId, sub });
    } catch (err) {
      // Watcher limit reached: the timers still evaluate this watch.
      log.debug({ event: 'supervisor.subscribe_failed', err: String(err) }, 'no output watcher for a watch');
    }
  }

  function unsubscribe(watchId: number): void {
    lastRun.delete(watchId);
    reads.delete(watchId);
    subscriptions.get(watchId)?.sub.unsubscribe();
    subscriptions.delete(watchId);
    clearTimeout(quietTimers.get(watchId));
    quietTimers.delete(watchId);
  }

  /** supervisor.watched_session_patterns and watched_bindings: created once (a watch that
   * stopped itself stays stopped until supervisor_watch resumes it). */
  async function seedConfigWatches(): Promise<void> {
    const now = clock();
    const add = (kind: 'session' | 'binding', target: string) => {
      const key = `${kind}:${target}`;
      if (store.watchByKey(key) === undefined) store.upsertWatch({ key, kind, target, doneMarker: 'TERMINAL_MCP_DONE', source: 'config', by: 'broker:config', now });
    };
    for (const name of config.watched_bindings) if (deps.bindings(name) !== undefined) add('binding', name);
    if (config.watched_session_patterns.length === 0) return;
    for (const s of await deps.tmux.listSessions()) {
      if (!matchesAny(config.watched_session_patterns, s.name)) continue;
      try {
        await deps.reader.resolve({ session: s.name });
        add('session', s.name);
      } catch {
        // Only readable sessions are ever watched.
      }
    }
  }

  async function pass(source: string): Promise<EventRow[]> {
    await seedConfigWatches().catch((err: unknown) => log.warn({ event: 'supervisor.seed_failed', err: String(err) }, 'could not seed config watches'));
    const events: EventRow[] = [];
    for (const w of store.listWatches()) if (w.enabled === 1) events.push(...(await evaluate(w.id, true, source)));
    refresh();
    return events;
  }

  function refresh(): void {
    const enabled = store.listWatches().filter((w) => w.enabled === 1);
    for (const id of subscriptions.keys()) if (!enabled.some((w) => w.id === id)) unsubscribe(id);
    const wantTimer = started && (enabled.length > 0 || config.watched_session_patterns.length > 0 || config.watched_bindings.length > 0);
    if (wantTimer && pollTimer === undefined) {
      pollTimer = setInterval(() => {
        pass('timer').catch((err: unknown) => log.warn({ event: 'supervisor.pass_failed', err: String(err) }, 'supervisor pass failed'));
      }, config.poll_interval_seconds * 1000);
      pollTimer.unref();
    } else if (!wantTimer && pollTimer !== undefined) {
      clearInterval(pollTimer);
      pollTimer = undefined;
    }
    if (started) for (const w of enabled) if (!subscriptions.has(w.id)) schedule(w.id, 'subscribe');
  }

  return {
    deps,
    resolve,
    look,
    start() {
      if (!config.enabled || started) return;
      started = true;
      log.info({ event: 'supervisor.started', pollIntervalSeconds: config.poll_interval_seconds }, 'supervisor watching');
      refresh();
      void pass('start').catch(() => undefined);
    },
    stop() {
      started = false;
      if (pollTimer !== undefined) clearInterval(pollTimer);
      pollTimer = undefined;
      for (const id of [...subscriptions.keys()]) unsubscribe(id);
      for (const t of [...pending.values(), ...quietTimers.values()]) clearTimeout(t);
      pending.clear();
      quietTimers.clear();
      reads.clear();
      fireWaiters();
    },
    running: () => started,
    runOnce: () => pass('run_once'),
    evaluate: (id, poll) => evaluate(id, poll, 'manual'),
    refresh,
    nextEvent: (untilMs, signal) =>
      new Promise<void>((resolveWait) => {
        if (signal?.aborted) return resolveWait();
        const done = () => {
          clearTimeout(timer);
          waiters.delete(done);
          signal?.removeEventListener('abort', done);
          resolveWait();
        };
        const timer = setTimeout(done, Math.max(0, untilMs - clock()));
        waiters.add(done);
        signal?.addEventListener('abort', done, { once: true });
      }),
  };
}
