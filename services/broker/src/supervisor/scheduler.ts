/**
 * The supervisor's scheduler: decides WHEN a watch is evaluated, never what it finds.
 * With supervisor.enabled, each enabled watch follows its pane's output (the same
 * control-mode watcher as terminal_wait_for_state) and is evaluated after a burst of
 * output (coalesced); a one-shot timer looks again when the quiet time alone would change
 * its state (RUNNING → UNKNOWN → IDLE), and the slow poll_interval_seconds timer runs a
 * pass (counts iterations, seeds config watches). Every timer is unref'd, and none runs
 * while no watch is enabled: an idle broker does no work.
 */
import type { Logger } from 'pino';
import type { EventRow, WatchRow } from '../effects/store/supervisor-store.js';
import type { PaneWatcher, PaneWatchSubscription } from '../effects/tmux/pane-watch.js';
import type { SupervisorConfig } from './types.js';
import type { Evaluation } from './evaluator.js';

export interface WatchSchedulerDeps {
  config: SupervisorConfig;
  log: Pick<Logger, 'info' | 'warn' | 'debug'>;
  now: () => number;
  /** Absent (tests, no tmux): no output subscriptions; passes and timers still work. */
  paneWatch?: PaneWatcher | undefined;
  evaluate(watchId: number, poll: boolean, source: string): Promise<Evaluation>;
  /** One pass over every enabled watch (the poll timer's work). */
  pass(source: string): Promise<unknown>;
  enabledWatches(): WatchRow[];
  /** The watch is no longer followed: drop what the evaluator keeps for it. */
  forget(watchId: number): void;
}

export interface WatchScheduler {
  start(): void;
  stop(): void;
  running(): boolean;
  /** Evaluates a watch now and follows up on what the evaluation found. */
  run(watchId: number, poll: boolean, source: string): Promise<EventRow[]>;
  /** The watch's pane is in this session: evaluate it on that session's output. */
  follow(watch: WatchRow, sessionId: string): void;
  /** The watch's pane is one this host's pane watcher cannot follow (a node's): evaluate
   * it every `tickMs` instead. */
  tick(watch: WatchRow, tickMs: number): void;
  /** Re-reads which watches are enabled: subscriptions and the poll timer follow. */
  refresh(): void;
}

const COALESCE_MS = 100;

export function createWatchScheduler(deps: WatchSchedulerDeps): WatchScheduler {
  const { config, log, now: clock } = deps;
  /** What each followed watch is evaluated on: its session's output, or a tick (sessionId ''). */
  const subscriptions = new Map<number, { sessionId: string; sub: Pick<PaneWatchSubscription, 'unsubscribe'> }>();
  /** Evaluations scheduled and not yet run, one per watch. */
  const pending = new Map<number, NodeJS.Timeout>();
  const lastRun = new Map<number, number>();
  const quietTimers = new Map<number, NodeJS.Timeout>();
  let pollTimer: NodeJS.Timeout | undefined;
  let started = false;

  async function run(watchId: number, poll: boolean, source: string): Promise<EventRow[]> {
    const evaluation = await deps.evaluate(watchId, poll, source);
    const { next } = evaluation;
    if (next === 'stop') unfollow(watchId);
    else if (next !== 'keep') recheckAfter(watchId, next.recheckSeconds);
    return evaluation.events;
  }

  /** Coalesces bursts of output: the first output after a quiet spell is evaluated at
   * once (a prompt is noticed without delay), the rest at most once per COALESCE_MS. */
  function schedule(watchId: number, source: string): void {
    if (pending.has(watchId) || !started) return;
    const wait = Math.max(0, (lastRun.get(watchId) ?? -Infinity) + COALESCE_MS - clock());
    const timer = setTimeout(() => {
      pending.delete(watchId);
      lastRun.set(watchId, clock());
      run(watchId, false, source).catch((err: unknown) => log.warn({ event: 'supervisor.evaluate_failed', err: String(err) }, 'watch evaluation failed'));
    }, wait);
    timer.unref();
    pending.set(watchId, timer);
  }

  /** When only the passing of quiet time can change the state, look again just after it has. */
  function recheckAfter(watchId: number, seconds: number | null): void {
    clearTimeout(quietTimers.get(watchId));
    quietTimers.delete(watchId);
    if (!started || seconds === null) return;
    const timer = setTimeout(() => {
      quietTimers.delete(watchId);
      schedule(watchId, 'idle_timer');
    }, Math.max(1, seconds) * 1000);
    timer.unref();
    quietTimers.set(watchId, timer);
  }

  function follow(watch: WatchRow, sessionId: string): void {
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

  function tick(watch: WatchRow, tickMs: number): void {
    if (!started || watch.enabled !== 1 || subscriptions.has(watch.id)) return;
    const timer = setInterval(() => schedule(watch.id, 'tick'), tickMs);
    timer.unref();
    subscriptions.set(watch.id, { sessionId: '', sub: { unsubscribe: () => clearInterval(timer) } });
  }

  function unfollow(watchId: number): void {
    lastRun.delete(watchId);
    deps.forget(watchId);
    subscriptions.get(watchId)?.sub.unsubscribe();
    subscriptions.delete(watchId);
    clearTimeout(quietTimers.get(watchId));
    quietTimers.delete(watchId);
  }

  function refresh(): void {
    const enabled = deps.enabledWatches();
    for (const id of subscriptions.keys()) if (!enabled.some((w) => w.id === id)) unfollow(id);
    const wantTimer = started && (enabled.length > 0 || config.watched_session_patterns.length > 0 || config.watched_bindings.length > 0);
    if (wantTimer && pollTimer === undefined) {
      pollTimer = setInterval(() => {
        deps.pass('timer').catch((err: unknown) => log.warn({ event: 'supervisor.pass_failed', err: String(err) }, 'supervisor pass failed'));
      }, config.poll_interval_seconds * 1000);
      pollTimer.unref();
    } else if (!wantTimer && pollTimer !== undefined) {
      clearInterval(pollTimer);
      pollTimer = undefined;
    }
    if (started) for (const w of enabled) if (!subscriptions.has(w.id)) schedule(w.id, 'subscribe');
  }

  return {
    start() {
      if (!config.enabled || started) return;
      started = true;
      log.info({ event: 'supervisor.started', pollIntervalSeconds: config.poll_interval_seconds }, 'supervisor watching');
      refresh();
      void deps.pass('start').catch(() => undefined);
    },
    stop() {
      started = false;
      if (pollTimer !== undefined) clearInterval(pollTimer);
      pollTimer = undefined;
      for (const id of [...subscriptions.keys()]) unfollow(id);
      for (const t of [...pending.values(), ...quietTimers.values()]) clearTimeout(t);
      pending.clear();
      quietTimers.clear();
    },
    running: () => started,
    run,
    follow,
    tick,
    refresh,
  };
}
