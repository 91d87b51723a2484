/** An autonomous watch that claims DONE is VERIFYING until its verifier policy (verify.ts)
 * says VERIFIED_DONE, FAILED or BLOCKED; without a policy it is BLOCKED, never verified
 * on prose alone. Knows which watches' verifiers run now, so a verifier is never started
 * twice for one watch. */
import type { EventRow, SupervisorStore, WatchRow } from '../effects/store/supervisor-store.js';
import type { Observation } from './evidence.js';
import type { PlannedEvent } from './transition.js';
import type { VerifierOutcome } from './verify.js';

type RecordEvent = (watch: WatchRow, planned: PlannedEvent, obs: Pick<Observation, 'hash' | 'preview'>, iteration: number, metadata: { [key: string]: string | number | boolean | null }) => EventRow;

export interface DoneVerifier {
  /** Runs the watch's verifier and records what it decided. */
  verify(watch: WatchRow, obs: Observation, iteration: number, source: string): Promise<EventRow[]>;
  /** True while the watch's verifier runs. */
  running(watchId: number): boolean;
}

export function createDoneVerifier(deps: { store: SupervisorStore; verify?: ((watch: WatchRow) => Promise<VerifierOutcome>) | undefined; record: RecordEvent; now: () => number }): DoneVerifier {
  const { store, record, now: clock } = deps;
  const verifying = new Set<number>();
  return {
    running: (watchId) => verifying.has(watchId),
    async verify(watch, obs, iteration, source) {
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
    },
  };
}
