/** After the supervisor typed into a watch's pane (actions.ts), the open action is settled
 * by what the next evaluations see: new output completes it; none within
 * no_progress_limit polls blocks it. */
import type { EventRow, SupervisorStore, WatchRow } from '../effects/store/supervisor-store.js';
import type { Observation } from './evidence.js';

export function settleOpenAction(store: SupervisorStore, watch: WatchRow, obs: Observation, poll: boolean, events: readonly EventRow[], now: number): void {
  const action = store.openAction(watch.id);
  if (action?.state !== 'observing') return;
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
