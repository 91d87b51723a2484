/**
 * The supervisor's sequential evaluator: reads a watch's screen exactly as
 * terminal_status reads a session (the read gate, the redacted screen, statusOf), lets
 * evidence.ts and transition.ts decide its state and events, records them, has an
 * autonomous watch that claims DONE verified (verify-done.ts) and settles post-send
 * actions (post-send.ts).
 * Evaluations of one watch run one at a time, in the order asked. It owns no timer: it
 * answers what the scheduler (scheduler.ts) should do next.
 */
import { readAppErrorData, type SupervisorEvent, type SessionStatusResult } from '@terminal-mcp/contract';
import type { Logger } from 'pino';
import type { EventRow, SupervisorStore, WatchRow } from '../effects/store/supervisor-store.js';
import type { TargetRef } from '../access/target.js';
import { RECENT_OUTPUT_SECONDS } from '../policy/status.js';
import { classifiedStatus, type ContinuedRead, type ReadCallerId, type SessionReader } from '../reads/session-reader.js';
import type { SupervisorConfig } from './types.js';
import { observe, type Observation } from './evidence.js';
import type { PaneIdentity } from '../policy/identity.js';
import { stepWatch, type PlannedEvent } from './transition.js';
import { createDoneVerifier } from './verify-done.js';
import { settleOpenAction } from './post-send.js';
import { eventView } from './views.js';
import type { VerifierOutcome } from './verify.js';
import { createLimitParks, type LimitParks, type LimitResumeSend } from './limit-parks.js';

export interface WatchEvaluatorDeps {
  store: SupervisorStore;
  reader: Pick<SessionReader, 'follow'>;
  config: SupervisorConfig;
  log: Pick<Logger, 'warn' | 'debug' | 'info'>;
  now: () => number;
  verify?: ((watch: WatchRow) => Promise<VerifierOutcome>) | undefined;
  /** Told of every recorded event (the webhook, the waiters). Must not throw. */
  recorded: (event: SupervisorEvent) => void;
  /** Told which session a watch's pane is in, each time its screen is read. */
  looked: (watch: WatchRow, sessionId: string) => void;
  /** The guarded send a usage-limit resume types through (limit-parks.ts), once wired. */
  limitSend: () => LimitResumeSend | undefined;
  random?: (() => number) | undefined;
}

/** What an evaluation leaves the scheduler to do. */
export interface Evaluation {
  events: EventRow[];
  /** `stop`: the watch stopped itself (target gone, or a limit reached), follow it no
   * more; `keep`: nothing was read (no such watch, or a passing failure), change nothing;
   * else look again after `recheckSeconds` when only quiet time can change the state. */
  next: 'stop' | 'keep' | { recheckSeconds: number | null };
}

export interface WatchEvaluator {
  /** Evaluates one watch after every evaluation of it asked before. */
  evaluate(watchId: number, poll: boolean, source: string): Promise<Evaluation>;
  /** The watch's current screen, as an observation (for decision-time checks). */
  look(watch: WatchRow): Promise<{ obs: Observation; status: SessionStatusResult; identity: PaneIdentity }>;
  /** Agents parked at a usage limit (limit-parks.ts). */
  readonly parks: LimitParks;
  /** Drops the watch's continued read (it stopped or was removed). */
  forget(watchId: number): void;
  clear(): void;
}

/** Errors that mean the target is gone or no longer readable: the watch stops. */
const TARGET_GONE: ReadonlySet<string> = new Set(['SESSION_NOT_FOUND', 'SESSION_NOT_ALLOWED', 'READ_DISABLED', 'BINDING_NOT_FOUND', 'IDENTITY_CHANGED']);
/** Who the supervisor's reads are recorded for in the read audit. */
const SUPERVISOR: ReadCallerId = { role: 'broker', actor: 'broker:supervisor' };
export const refOf = (watch: Pick<WatchRow, 'kind' | 'target'>): TargetRef => (watch.kind === 'binding' ? { binding: watch.target } : { session: watch.target });
const NOTHING: Evaluation = { events: [], next: 'keep' };

/** When only the passing of quiet time can change the state, the seconds until it has. */
export function recheckSeconds(obs: Observation, status: SessionStatusResult, config: Pick<SupervisorConfig, 'idle_threshold_seconds'>): number | null {
  if (obs.state === 'RUNNING' && !/busy|spinner/.test(obs.reason)) return RECENT_OUTPUT_SECONDS + 1 - status.idle_seconds;
  if (obs.state === 'UNKNOWN') return config.idle_threshold_seconds - status.idle_seconds + 1;
  return null;
}

export function createWatchEvaluator(deps: WatchEvaluatorDeps): WatchEvaluator {
  const { store, config, log, now: clock } = deps;
  /** The evaluation of each watch in flight: the next one waits for it. */
  const chains = new Map<number, Promise<unknown>>();
  /** Each watch's continued read (reads/session-reader.ts): one read audit row per watch
   * and pane, not one per evaluation. */
  const reads = new Map<number, ContinuedRead>();

  async function look(watch: WatchRow) {
    let read = reads.get(watch.id);
    if (read === undefined) {
      read = deps.reader.follow(SUPERVISOR, 'supervisor', refOf(watch));
      reads.set(watch.id, read);
    }
    const { target, lines, paneZone } = await read.screen();
    const { status, limit } = classifiedStatus(target, lines, clock(), undefined, paneZone);
    deps.looked(watch, target.identity.sessionId);
    return { obs: observe(status, lines, watch.done_marker, config.idle_threshold_seconds, limit), status, identity: target.identity };
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
    deps.recorded(eventView(row));
    return row;
  }

  const doneVerifier = createDoneVerifier({ store, verify: deps.verify, record, now: clock });
  const parks = createLimitParks({
    store,
    config,
    log: deps.log,
    now: clock,
    random: deps.random ?? Math.random,
    look,
    record,
    exclusive: (watchId, work) => inChain(watchId, work),
    send: deps.limitSend,
  });

  /** Runs `work` after every evaluation of the watch asked before it. */
  function inChain<T>(watchId: number, work: () => Promise<T>): Promise<T> {
    const previous = chains.get(watchId) ?? Promise.resolve();
    const next = previous.then(work, work);
    chains.set(watchId, next);
    void next
      .finally(() => {
        if (chains.get(watchId) === next) chains.delete(watchId);
      })
      .catch(() => undefined);
    return next;
  }

  /** Autonomous watches (approved_auto_continue, with v2 on) need the verifier to reach
   * VERIFIED_DONE; every other watch's DONE is final as it is. */
  function autonomous(watch: WatchRow): boolean {
    return config.v2_enabled && store.policy(watch.id)?.mode === 'approved_auto_continue';
  }

  async function evaluateNow(watchId: number, poll: boolean, source: string): Promise<Evaluation> {
    const watch = store.watchById(watchId);
    if (!watch || watch.enabled !== 1) return NOTHING;
    let obs: Observation;
    let status: SessionStatusResult;
    let identity: PaneIdentity;
    try {
      ({ obs, status, identity } = await look(watch));
    } catch (err) {
      const code = readAppErrorData(err)?.code;
      if (code === undefined || !TARGET_GONE.has(code)) {
        // A node that is down is reported by its own state (terminal_node_health, the broker's
        // node log); its watches are looked at again on every tick until it is back.
        const level = code === 'NODE_UNAVAILABLE' ? 'debug' : 'warn';
        log[level]({ event: 'supervisor.evaluate_failed', watch: watch.watch_key, code }, 'could not evaluate a watch; will retry');
        return NOTHING;
      }
      // Same words whether the session is gone or was never readable: nothing about it leaks.
      const reason = `the target is missing or not readable (${code}); the watch stopped`;
      store.updateWatch(watch.id, { enabled: 0, disabled_reason: reason }, clock());
      const event = record(watch, { type: 'watch_target_missing', previous: watch.state, state: watch.state as PlannedEvent['state'], reason }, { hash: '', preview: '' }, watch.iteration_count, { source, code });
      return { events: [event], next: 'stop' };
    }
    // A parked watch waits for a reset hours away: its polls do not use up max_iterations.
    const parked = store.latestPark(watch.id)?.state === 'parked';
    const step = stepWatch(
      { state: watch.state, lastOutputHash: watch.last_output_hash, failureCount: watch.failure_count, iterationCount: watch.iteration_count },
      obs,
      poll && !parked,
      { sameFailureLimit: config.same_failure_limit, maxIterations: config.max_iterations },
    );
    const events: EventRow[] = [];
    const done = obs.state === 'DONE' && autonomous(watch);
    const rerunVerify = watch.state === 'VERIFYING' && !doneVerifier.running(watch.id);
    let stopped = false;
    if (done && (step.events.some((e) => e.state === 'DONE') || rerunVerify)) {
      store.updateWatch(watch.id, { iteration_count: step.next.iterationCount, failure_count: 0 }, clock());
      events.push(...(await doneVerifier.verify({ ...watch, iteration_count: step.next.iterationCount }, obs, step.next.iterationCount, source)));
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
      for (const planned of step.events) events.push(record(watch, planned, obs, step.next.iterationCount, { source, ...limitFacts(watch, planned, obs) }));
      stopped = step.disable !== null;
    }
    if (!stopped) events.push(...parks.observed(watch, obs, status, identity, events));
    settleOpenAction(store, watch, obs, poll, events, clock());
    if (stopped) return { events, next: 'stop' };
    // A limit reached while the verifier decided DONE: the watch stays as the verifier left it.
    if (step.disable !== null) return { events, next: 'keep' };
    return { events, next: { recheckSeconds: recheckSeconds(obs, status, config) } };
  }

  /** What a limit_reached event says besides its reason: the reset and whether it is resumed. */
  function limitFacts(watch: WatchRow, planned: PlannedEvent, obs: Observation): Record<string, string> {
    if (planned.type !== 'limit_reached' || obs.limit === undefined) return {};
    return { resets_at: new Date(obs.limit.resetsAt).toISOString(), limit_kind: obs.limit.kind, program: obs.limit.program, resume: parks.enabledFor(watch) ? 'scheduled' : 'off' };
  }

  return {
    evaluate: (watchId, poll, source) => inChain(watchId, () => evaluateNow(watchId, poll, source)),
    look,
    parks,
    forget: (watchId) => void reads.delete(watchId),
    clear: () => reads.clear(),
  };
}
