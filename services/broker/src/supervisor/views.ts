/** Store rows as the public shapes of the supervisor tools (shared/contract/src/supervisor.ts). */
import {
  SUPERVISOR_EVENT_SCHEMA_VERSION,
  type LimitPark,
  type SupervisorAction,
  type SupervisorEvent,
  type SupervisorPolicy,
  type ActionState,
  type SupervisorEventType,
  type Watch,
  type WatchState,
} from '@terminal-mcp/contract';
import type { ActionRow, EventRow, ParkRow, PolicyRow, SupervisorStore, WatchRow } from '../effects/store/supervisor-store.js';

const iso = (ms: number) => new Date(ms).toISOString();
const isoOrNull = (ms: number | null) => (ms === null ? null : iso(ms));

export const DEFAULT_POLICY = {
  mode: 'observe_only',
  approved_template: null,
  max_auto_actions: 10,
  wall_clock_timeout_seconds: 3600,
  same_prompt_repeat_limit: 3,
  no_progress_limit: 3,
} as const;

export function eventView(e: EventRow): SupervisorEvent {
  let metadata: SupervisorEvent['metadata'] = {};
  try {
    metadata = JSON.parse(e.metadata) as SupervisorEvent['metadata'];
  } catch {
    metadata = {};
  }
  return {
    schema_version: SUPERVISOR_EVENT_SCHEMA_VERSION,
    id: e.id,
    timestamp: iso(e.at),
    watch_key: e.watch_key,
    kind: e.kind,
    target: e.target,
    previous_state: e.previous_state as WatchState | null,
    state: e.state as WatchState,
    event_type: e.event_type as SupervisorEventType,
    reason: e.reason,
    output_preview: e.output_preview,
    output_hash: e.output_hash,
    iteration_count: e.iteration_count,
    acknowledged_at: isoOrNull(e.acknowledged_at),
    metadata,
  };
}

export function watchView(store: SupervisorStore, w: WatchRow): Watch {
  return {
    watch_key: w.watch_key,
    kind: w.kind,
    target: w.target,
    state: w.state as WatchState,
    enabled: w.enabled === 1,
    disabled_reason: w.disabled_reason,
    iteration_count: w.iteration_count,
    failure_count: w.failure_count,
    done_marker: w.done_marker,
    source: w.source,
    policy_mode: store.policy(w.id)?.mode ?? DEFAULT_POLICY.mode,
    verifier: store.verifier(w.id) !== undefined,
    updated_at: iso(w.updated_at),
  };
}

export function policyView(w: WatchRow, p: PolicyRow | undefined): SupervisorPolicy {
  return {
    watch_key: w.watch_key,
    mode: p?.mode ?? DEFAULT_POLICY.mode,
    approved_template: p?.approved_template ?? null,
    max_auto_actions: p?.max_auto_actions ?? DEFAULT_POLICY.max_auto_actions,
    wall_clock_timeout_seconds: p?.wall_clock_timeout_seconds ?? DEFAULT_POLICY.wall_clock_timeout_seconds,
    same_prompt_repeat_limit: p?.same_prompt_repeat_limit ?? DEFAULT_POLICY.same_prompt_repeat_limit,
    no_progress_limit: p?.no_progress_limit ?? DEFAULT_POLICY.no_progress_limit,
    auto_action_count: p?.auto_action_count ?? 0,
    first_action_at: isoOrNull(p?.first_action_at ?? null),
    blocked_reason: p?.blocked_reason ?? null,
  };
}

export function actionView(store: SupervisorStore, a: ActionRow): SupervisorAction {
  return {
    id: a.id,
    watch_key: store.watchById(a.watch_id)?.watch_key ?? '',
    event_id: a.event_id,
    state: a.state as ActionState,
    claimed_by: a.claimed_by,
    claim_expires_at: iso(a.claim_expires_at),
    prompt: a.prompt,
    approved_by: a.approved_by,
    blocked_reason: a.blocked_reason,
    send_result: a.send_audit_id === null || a.send_text_length === null ? null : { audit_id: a.send_audit_id, text_length: a.send_text_length },
    resulting_event_id: a.resulting_event_id,
    created_at: iso(a.created_at),
    updated_at: iso(a.updated_at),
  };
}

/** A park as the dashboard shows it; undefined when its watch was removed (the row goes with it). */
export function parkView(store: SupervisorStore, p: ParkRow): LimitPark | undefined {
  const w = store.watchById(p.watch_id);
  if (w === undefined) return undefined;
  return {
    id: p.id,
    watch_key: w.watch_key,
    kind: w.kind,
    target: w.target,
    state: p.state,
    limit_kind: p.limit_kind,
    program: p.program,
    resets_at: iso(p.resets_at),
    resume_at: iso(p.resume_at),
    message: p.message,
    outcome: p.outcome,
    created_at: iso(p.created_at),
    updated_at: iso(p.updated_at),
  };
}
