/** Schemas of the supervisor tools: watches that notice a session waiting, failing or
 * finishing (v1), a guarded claim → decide → approve → send queue (v2), and an
 * independent verifier for completion claims. Public MCP API: snake_case, every string
 * and array capped. */
import { z } from 'zod';
import { bindingNameSchema } from './input.js';
import { sessionNameSchema } from './sessions.js';

/** The stable JSON shape of one event (webhook bodies and tool results). */
export const SUPERVISOR_EVENT_SCHEMA_VERSION = 1;

export const SUPERVISOR_LIMITS = {
  doneMarkerMax: 120,
  promptMax: 4000,
  templateMax: 4000,
  previewMax: 400,
  reasonMax: 300,
  listMax: 200,
  /** A claim or decision not executed within this lease is expired and can be reclaimed. */
  claimLeaseSeconds: 300,
  maxWaitSeconds: 20,
} as const;

export const watchStateSchema = z.enum([
  'RUNNING',
  'IDLE',
  'WAITING_INPUT',
  'UNKNOWN',
  'DONE',
  'ERROR',
  'VERIFYING',
  'VERIFIED_DONE',
  'FAILED',
  'BLOCKED',
]);
export type WatchState = z.infer<typeof watchStateSchema>;

export const eventTypeSchema = z.enum([
  'state_changed',
  'attention_required',
  'completed',
  'error_detected',
  'stalled',
  'watch_target_missing',
  'session_died',
  'session_recovered',
  'crash_loop',
  // An agent hit a usage limit (metadata resets_at); parked, resumed at the reset, or the park cancelled.
  'limit_reached',
  'limit_resumed',
  'limit_cancelled',
]);
export type SupervisorEventType = z.infer<typeof eventTypeSchema>;

export const policyModeSchema = z.enum(['observe_only', 'suggest_only', 'approved_auto_continue']);
export type PolicyMode = z.infer<typeof policyModeSchema>;

export const actionStateSchema = z.enum(['claimed', 'decided', 'approved', 'sent', 'observing', 'completed', 'rejected', 'blocked', 'failed', 'expired']);
export type ActionState = z.infer<typeof actionStateSchema>;

/** Exactly one of session or binding names the watch's target. */
const targetShape = {
  session: sessionNameSchema.optional().describe('exact session name'),
  binding: bindingNameSchema.optional().describe('binding name (instead of session)'),
};
const oneTarget = (v: { session?: string | undefined; binding?: string | undefined }) => (v.session === undefined) !== (v.binding === undefined);
const oneTargetMessage = { message: 'pass exactly one of session or binding' };

export const watchInputShape = {
  ...targetShape,
  done_marker: z.string().min(1).max(SUPERVISOR_LIMITS.doneMarkerMax).optional().describe('a line equal to this means DONE (default TERMINAL_MCP_DONE)'),
};
export const watchInputSchema = z.object(watchInputShape).strict().refine(oneTarget, oneTargetMessage);
export type WatchInput = z.infer<typeof watchInputSchema>;

export const watchTargetInputShape = targetShape;
export const watchTargetInputSchema = z.object(targetShape).strict().refine(oneTarget, oneTargetMessage);
export type WatchTargetInput = z.infer<typeof watchTargetInputSchema>;

export const watchSchema = z.object({
  watch_key: z.string(),
  kind: z.enum(['session', 'binding']),
  target: z.string(),
  state: watchStateSchema,
  enabled: z.boolean(),
  disabled_reason: z.string().nullable(),
  iteration_count: z.number().int(),
  failure_count: z.number().int(),
  done_marker: z.string(),
  source: z.enum(['manual', 'config']),
  policy_mode: policyModeSchema,
  verifier: z.boolean().describe('a verifier policy is set'),
  updated_at: z.string(),
});
export type Watch = z.infer<typeof watchSchema>;

export const listWatchesOutputSchema = z.object({ watches: z.array(watchSchema) });
export type ListWatchesOutput = z.infer<typeof listWatchesOutputSchema>;

export const unwatchOutputSchema = z.object({ watch_key: z.string(), removed: z.boolean() });
export type UnwatchOutput = z.infer<typeof unwatchOutputSchema>;

export const supervisorEventSchema = z.object({
  schema_version: z.literal(SUPERVISOR_EVENT_SCHEMA_VERSION),
  id: z.number().int(),
  timestamp: z.string(),
  watch_key: z.string(),
  kind: z.enum(['session', 'binding']),
  target: z.string(),
  previous_state: watchStateSchema.nullable(),
  state: watchStateSchema,
  event_type: eventTypeSchema,
  reason: z.string(),
  output_preview: z.string().describe('redacted and cut before it was stored'),
  output_hash: z.string(),
  iteration_count: z.number().int(),
  acknowledged_at: z.string().nullable(),
  metadata: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])),
});
export type SupervisorEvent = z.infer<typeof supervisorEventSchema>;

export const listEventsInputShape = {
  watch_key: z.string().max(200).optional().describe('only this watch'),
  unacknowledged_only: z.boolean().optional().describe('default false'),
  after_id: z.number().int().min(0).optional().describe('only events with a larger id'),
  limit: z.number().int().min(1).max(SUPERVISOR_LIMITS.listMax).optional().describe('default 50'),
};
export const listEventsInputSchema = z.object(listEventsInputShape).strict();
export type ListEventsInput = z.infer<typeof listEventsInputSchema>;

export const listEventsOutputSchema = z.object({ events: z.array(supervisorEventSchema) });
export type ListEventsOutput = z.infer<typeof listEventsOutputSchema>;

export const ackEventInputShape = { event_id: z.number().int().min(1).describe('the event to acknowledge') };
export const ackEventInputSchema = z.object(ackEventInputShape).strict();
export const ackEventOutputSchema = z.object({ event_id: z.number().int(), acknowledged_at: z.string() });
export type AckEventOutput = z.infer<typeof ackEventOutputSchema>;

export const waitEventsInputShape = {
  after_id: z.number().int().min(0).optional().describe('return events with a larger id (default: the newest id now)'),
  timeout_s: z.number().min(0).max(SUPERVISOR_LIMITS.maxWaitSeconds).optional().describe(`0-${SUPERVISOR_LIMITS.maxWaitSeconds}, default 20`),
};
export const waitEventsInputSchema = z.object(waitEventsInputShape).strict();
export type WaitEventsInput = z.infer<typeof waitEventsInputSchema>;
export const waitEventsOutputSchema = z.object({
  state: z.enum(['EVENTS', 'PENDING']),
  events: z.array(supervisorEventSchema),
  next_after_id: z.number().int().describe('pass as after_id to keep waiting'),
});
export type WaitEventsOutput = z.infer<typeof waitEventsOutputSchema>;

export const supervisorStatusSchema = z.object({
  enabled: z.boolean().describe('supervisor.enabled: watches are evaluated on pane output and the timer'),
  running: z.boolean(),
  v2_enabled: z.boolean(),
  poll_interval_seconds: z.number().int(),
  idle_threshold_seconds: z.number().int(),
  watches: z.number().int(),
  enabled_watches: z.number().int(),
  unacknowledged_events: z.number().int(),
  by_state: z.record(z.string(), z.number().int()),
  verifier_profiles: z.array(z.string()).describe('ids a watch\'s verifier policy may name (supervisor.verifier_profiles)'),
});
export type SupervisorStatus = z.infer<typeof supervisorStatusSchema>;

export const runOnceOutputSchema = z.object({
  evaluated: z.number().int(),
  events: z.array(supervisorEventSchema),
});
export type RunOnceOutput = z.infer<typeof runOnceOutputSchema>;

/** A verifier profile id: an entry of the operator's supervisor.verifier_profiles. A client
 * chooses an id and nothing else: the command, its directory and its timeout are the
 * operator's. */
export const verifierProfileIdSchema = z.string().regex(/^[a-z0-9._-]{1,64}$/, 'profile: 1-64 characters of a-z 0-9 . _ -');

export const setVerifierPolicyInputShape = {
  ...targetShape,
  profile: verifierProfileIdSchema.describe('an id from supervisor_status verifier_profiles (the operator configures them)'),
  require_commit_matches: z.string().regex(/^[0-9a-f]{7,64}$/).optional().describe('HEAD must start with this (hex)'),
};
export const setVerifierPolicyInputSchema = z.object(setVerifierPolicyInputShape).strict().refine(oneTarget, oneTargetMessage);
export type SetVerifierPolicyInput = z.infer<typeof setVerifierPolicyInputSchema>;
export const verifierPolicySchema = z.object({
  watch_key: z.string(),
  profile: z.string(),
  require_git_clean: z.boolean(),
  require_commit_matches: z.string().nullable(),
  runs_test_command: z.boolean().describe('the profile names a test command'),
  timeout_seconds: z.number().int(),
});
export type VerifierPolicy = z.infer<typeof verifierPolicySchema>;

// ---------------------------------------------------------------------------------
// v2

export const setPolicyInputShape = {
  ...targetShape,
  mode: policyModeSchema,
  approved_template: z.string().min(1).max(SUPERVISOR_LIMITS.templateMax).optional().describe('the one prompt that auto-approves'),
  max_auto_actions: z.number().int().min(1).max(1000).optional(),
  wall_clock_timeout_seconds: z.number().int().min(60).max(7 * 86400).optional(),
  same_prompt_repeat_limit: z.number().int().min(1).max(100).optional(),
  no_progress_limit: z.number().int().min(1).max(100).optional(),
};
export const setPolicyInputSchema = z
  .object(setPolicyInputShape)
  .strict()
  .refine(oneTarget, oneTargetMessage)
  .refine((v) => v.mode !== 'approved_auto_continue' || v.approved_template !== undefined, { message: 'approved_auto_continue needs approved_template', path: ['approved_template'] });
export type SetPolicyInput = z.infer<typeof setPolicyInputSchema>;

export const policySchema = z.object({
  watch_key: z.string(),
  mode: policyModeSchema,
  approved_template: z.string().nullable(),
  max_auto_actions: z.number().int(),
  wall_clock_timeout_seconds: z.number().int(),
  same_prompt_repeat_limit: z.number().int(),
  no_progress_limit: z.number().int(),
  auto_action_count: z.number().int(),
  first_action_at: z.string().nullable(),
  blocked_reason: z.string().nullable(),
});
export type SupervisorPolicy = z.infer<typeof policySchema>;

export const actionSchema = z.object({
  id: z.number().int(),
  watch_key: z.string(),
  event_id: z.number().int(),
  state: actionStateSchema,
  claimed_by: z.string(),
  claim_expires_at: z.string(),
  prompt: z.string().nullable().describe('redacted before it was stored'),
  approved_by: z.string().nullable(),
  blocked_reason: z.string().nullable(),
  send_result: z.object({ audit_id: z.number().int(), text_length: z.number().int() }).nullable(),
  resulting_event_id: z.number().int().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type SupervisorAction = z.infer<typeof actionSchema>;

export const listActionableInputShape = { limit: listEventsInputShape.limit };
export const listActionableInputSchema = z.object(listActionableInputShape).strict();

export const claimEventInputShape = { event_id: z.number().int().min(1).describe('an actionable event') };
export const claimEventInputSchema = z.object(claimEventInputShape).strict();

export const submitDecisionInputShape = {
  action_id: z.number().int().min(1),
  prompt: z.string().min(1).max(SUPERVISOR_LIMITS.promptMax).describe('the text to type (Enter is pressed after it)'),
};
export const submitDecisionInputSchema = z.object(submitDecisionInputShape).strict();

export const reviewActionInputShape = {
  action_id: z.number().int().min(1),
  decision: z.enum(['approve', 'reject']),
};
export const reviewActionInputSchema = z.object(reviewActionInputShape).strict();

export const actionIdInputShape = { action_id: z.number().int().min(1) };
export const actionIdInputSchema = z.object(actionIdInputShape).strict();

export const executeSendOutputSchema = z.object({
  sent: z.boolean().describe('false: the action was not approved any more (already sent, or never): nothing was typed'),
  action: actionSchema,
});
export type ExecuteSendOutput = z.infer<typeof executeSendOutputSchema>;

export const listActionsInputShape = {
  watch_key: listEventsInputShape.watch_key,
  open_only: z.boolean().optional().describe('only claimed/decided/approved/sent/observing'),
  limit: listEventsInputShape.limit,
};
export const listActionsInputSchema = z.object(listActionsInputShape).strict();
export const listActionsOutputSchema = z.object({ actions: z.array(actionSchema) });
export type ListActionsOutput = z.infer<typeof listActionsOutputSchema>;

// ---- usage-limit parks (supervisor.resume_after_limit) ----------------------------------

/** parked: waiting for resume_at; resuming: the one resume is under way; resumed: the
 * resume text was typed (or queued for review); cancelled: by the operator, or the pane
 * changed before the reset; failed: the guarded send refused or failed. */
export const limitParkStateSchema = z.enum(['parked', 'resuming', 'resumed', 'cancelled', 'failed']);
export type LimitParkState = z.infer<typeof limitParkStateSchema>;

export const limitParkSchema = z.object({
  id: z.number().int(),
  watch_key: z.string(),
  kind: z.enum(['session', 'binding']),
  target: z.string(),
  state: limitParkStateSchema,
  limit_kind: z.string().describe('session, weekly, extra_usage or usage'),
  program: z.string(),
  resets_at: z.string().describe('ISO 8601 instant the limit resets'),
  resume_at: z.string().describe('ISO 8601 instant the resume text is typed (the reset plus a small random delay)'),
  message: z.string().describe('the limit message as read (redacted)'),
  outcome: z.string().nullable().describe('why the park ended, once it has'),
  created_at: z.string(),
  updated_at: z.string(),
});
export type LimitPark = z.infer<typeof limitParkSchema>;

export const listParksOutputSchema = z.object({ parks: z.array(limitParkSchema) });
export type ListParksOutput = z.infer<typeof listParksOutputSchema>;

export const parkIdInputSchema = z.object({ park_id: z.number().int().min(1).max(2 ** 31) }).strict();
export type ParkIdInput = z.infer<typeof parkIdInputSchema>;
