/**
 * One step of a watch's state machine, pure: from the stored watch and a fresh
 * observation to the watch's new bookkeeping and the events to record. An event is
 * recorded only on a meaningful transition: a new state, or new content in a state that
 * asks for attention (a different prompt, a different error). Identical repeats are
 * counted, never re-alerted. `poll` is true for timer and run_once passes (they count
 * toward max_iterations and same_failure_limit); evaluations woken by pane output are
 * extra looks that count toward neither.
 */
import type { SupervisorEventType, WatchState } from '@terminal-mcp/contract';
import type { Observation } from './evidence.js';

export interface WatchBookkeeping {
  readonly state: string;
  readonly lastOutputHash: string;
  readonly failureCount: number;
  readonly iterationCount: number;
}

export interface StepLimits {
  readonly sameFailureLimit: number;
  readonly maxIterations: number;
}

export interface PlannedEvent {
  readonly type: SupervisorEventType;
  readonly previous: string | null;
  readonly state: WatchState;
  readonly reason: string;
}

export interface Step {
  readonly next: WatchBookkeeping;
  readonly events: readonly PlannedEvent[];
  /** Set when the watch stops itself (stalled). */
  readonly disable: string | null;
}

const ATTENTION_STATES: ReadonlySet<string> = new Set(['WAITING_INPUT', 'ERROR', 'DONE']);
/** States the verifier leads to: a DONE screen that is still the same says nothing new. */
const AFTER_DONE: ReadonlySet<string> = new Set(['VERIFYING', 'VERIFIED_DONE', 'FAILED', 'BLOCKED']);

export function eventTypeFor(state: string): SupervisorEventType {
  if (state === 'WAITING_INPUT') return 'attention_required';
  if (state === 'DONE' || state === 'VERIFIED_DONE') return 'completed';
  if (state === 'ERROR') return 'error_detected';
  return 'state_changed';
}

export function stepWatch(w: WatchBookkeeping, obs: Observation, poll: boolean, limits: StepLimits): Step {
  const iterationCount = w.iterationCount + (poll ? 1 : 0);
  const sameContent = obs.hash === w.lastOutputHash;
  const sameState = obs.state === w.state || (obs.state === 'DONE' && AFTER_DONE.has(w.state) && sameContent);
  const events: PlannedEvent[] = [];
  if (!sameState || (!sameContent && ATTENTION_STATES.has(obs.state))) {
    // An agent at its usage limit waits for the reset, not for an answer: limit_reached,
    // which no v2 client can claim (actions.ts ACTIONABLE), so nothing types before the reset.
    const type = obs.limit !== undefined ? 'limit_reached' : eventTypeFor(obs.state);
    events.push({ type, previous: w.state, state: obs.state, reason: obs.reason });
  }
  let failureCount = 0;
  if (obs.state === 'ERROR') failureCount = sameState && sameContent ? w.failureCount + (poll ? 1 : 0) : 1;
  const keptState = sameState ? w.state : obs.state;
  let disable: string | null = null;
  if (obs.state === 'ERROR' && failureCount >= limits.sameFailureLimit && events.length === 0) {
    disable = `the same error repeated ${failureCount} times in a row (same_failure_limit ${limits.sameFailureLimit})`;
  } else if (iterationCount >= limits.maxIterations) {
    disable = `${iterationCount} polls reached max_iterations ${limits.maxIterations}`;
  }
  if (disable !== null) events.push({ type: 'stalled', previous: keptState, state: keptState as WatchState, reason: disable });
  return { next: { state: keptState, lastOutputHash: obs.hash, failureCount, iterationCount }, events, disable };
}
