/**
 * v2: the claim → decide → approve → send queue. Every state change of an action is a
 * compare-and-swap on its `state` (supervisor-store.ts casAction); a watch has at most
 * one open action (a unique index), so two clients cannot both claim one watch.
 *
 * execute_send swaps approved → sent BEFORE it types anything, then calls the one guarded,
 * audited send path of the input tools (passed in as `send`: there is no second send
 * path). A retry, a second caller or a restart finds the action no longer approved and
 * types nothing. An action a dead broker left in `sent` without a result is closed as
 * failed at the next start (recoverSupervisorActions): never re-sent, the watch freed.
 *
 * Hard stops, each blocking the action (and, for stop patterns and limits, the watch's
 * policy, so no retry slips through): max_auto_actions, wall_clock_timeout_seconds since
 * the first action, same_prompt_repeat_limit, no_progress_limit (engine.ts reconcile),
 * an expired claim lease, and the attention stop patterns at claim time (the triggering
 * output) and at decision time (the prompt and the output re-read now).
 */
import { createHash } from 'node:crypto';
import {
  AppError,
  SUPERVISOR_LIMITS,
  type ExecuteSendOutput,
  type ListActionsOutput,
  type ListEventsOutput,
  type SendTextOutput,
  type SetPolicyInput,
  type SupervisorAction,
  type SupervisorPolicy,
  type WatchTargetInput,
} from '@terminal-mcp/contract';
import type { ActionRow, SupervisorStore, WatchRow } from '../effects/store/supervisor-store.js';
import { redactSecrets } from '../policy/redact.js';
import { autoContinueAllowed } from './auto-continue.js';
import { describeStop, stopPatternIn } from './stop-patterns.js';
import { actionView, DEFAULT_POLICY, eventView, policyView } from './views.js';
import { requireWatch, requireWatchKey, type SupervisorCaller } from './watches.js';

/** Events v2 may act on. */
const ACTIONABLE = ['attention_required', 'error_detected'] as const;

const sha = (text: string) => createHash('sha256').update(text).digest('hex');
const clockOf = (c: SupervisorCaller) => c.now();

/** The review the send carries into the input audit: who proposed and who approved. */
export interface SendReview {
  readonly actionId: number;
  readonly proposedBy: string;
  readonly approvedBy: string;
}

export type SendThroughInputPath = (watch: WatchRow, text: string, review: SendReview) => Promise<SendTextOutput>;

function current(store: SupervisorStore, id: number): ActionRow {
  const a = store.action(id);
  if (!a) throw new AppError('NOT_FOUND', 'no supervisor action with that id');
  return a;
}

function conflict(a: ActionRow, wanted: string): AppError {
  return new AppError('ACTION_CONFLICT', `action ${a.id} is ${a.state}, not ${wanted}`);
}

/** Blocks the action and the policy; the caller sees SUPERVISOR_BLOCKED with the reason. */
function block(c: SupervisorCaller, a: ActionRow, reason: string): never {
  const { store } = c;
  const now = clockOf(c);
  store.casAction(a.id, a.state, 'blocked', { blocked_reason: reason }, now);
  store.updatePolicy(a.watch_id, { blocked_reason: reason }, now);
  throw new AppError('SUPERVISOR_BLOCKED', reason);
}

/** Claims and decisions past their lease become expired (a later claim may take the watch). */
function expireStale(c: SupervisorCaller, watchId: number): void {
  const { store } = c;
  const a = store.openAction(watchId);
  const now = clockOf(c);
  if (a && (a.state === 'claimed' || a.state === 'decided') && a.claim_expires_at <= now) {
    store.casAction(a.id, a.state, 'expired', { blocked_reason: 'the claim lease expired before the action was sent' }, now);
  }
}

function requirePolicy(c: SupervisorCaller, w: WatchRow) {
  const p = c.store.policy(w.id);
  if (!p || p.mode === 'observe_only') throw new AppError('SUPERVISOR_BLOCKED', 'the watch is observe_only: supervisor2_set_policy opts it in');
  if (p.blocked_reason !== null) throw new AppError('SUPERVISOR_BLOCKED', `the watch's policy is blocked: ${p.blocked_reason}`);
  return p;
}

/** The limits that hold for any further automatic action on this watch. */
function hardStop(c: SupervisorCaller, w: WatchRow): string | null {
  const p = requirePolicy(c, w);
  if (p.auto_action_count >= p.max_auto_actions) return `max_auto_actions ${p.max_auto_actions} reached`;
  if (p.first_action_at !== null && clockOf(c) - p.first_action_at > p.wall_clock_timeout_seconds * 1000) {
    return `wall_clock_timeout_seconds ${p.wall_clock_timeout_seconds} passed since the first action`;
  }
  return null;
}

export function setPolicy(c: SupervisorCaller, input: SetPolicyInput): SupervisorPolicy {
  const w = requireWatch(c, input);
  const { store } = c;
  store.upsertPolicy({
    watch_id: w.id,
    mode: input.mode,
    // Compared after redaction, so it is stored redacted too.
    approved_template: input.approved_template === undefined ? null : redactSecrets(input.approved_template).text,
    max_auto_actions: input.max_auto_actions ?? DEFAULT_POLICY.max_auto_actions,
    wall_clock_timeout_seconds: input.wall_clock_timeout_seconds ?? DEFAULT_POLICY.wall_clock_timeout_seconds,
    same_prompt_repeat_limit: input.same_prompt_repeat_limit ?? DEFAULT_POLICY.same_prompt_repeat_limit,
    no_progress_limit: input.no_progress_limit ?? DEFAULT_POLICY.no_progress_limit,
    updated_at: clockOf(c),
  });
  return policyView(w, store.policy(w.id));
}

/** The dashboard's Pause: back to observe_only, limits kept; nothing more is offered or sent. */
export function pausePolicy(c: SupervisorCaller, watchKey: string): SupervisorPolicy {
  const w = requireWatchKey(c, watchKey);
  const { store } = c;
  const p = policyView(w, store.policy(w.id));
  store.upsertPolicy({
    watch_id: w.id,
    mode: 'observe_only',
    approved_template: p.approved_template,
    max_auto_actions: p.max_auto_actions,
    wall_clock_timeout_seconds: p.wall_clock_timeout_seconds,
    same_prompt_repeat_limit: p.same_prompt_repeat_limit,
    no_progress_limit: p.no_progress_limit,
    updated_at: clockOf(c),
  });
  return policyView(w, store.policy(w.id));
}

export function getPolicy(c: SupervisorCaller, input: WatchTargetInput): SupervisorPolicy {
  const w = requireWatch(c, input);
  return policyView(w, c.store.policy(w.id));
}

export function listActionable(c: SupervisorCaller, limit: number | undefined): ListEventsOutput {
  const { store } = c;
  const rows = store.listEvents({ unacknowledgedOnly: true, types: ACTIONABLE, limit: SUPERVISOR_LIMITS.listMax });
  const out = rows.filter((e) => {
    const p = store.policy(e.watch_id);
    if (!p || p.mode === 'observe_only' || p.blocked_reason !== null) return false;
    expireStale(c, e.watch_id);
    return store.openAction(e.watch_id) === undefined;
  });
  return { events: out.slice(0, limit ?? 50).map(eventView) };
}

export function claimEvent(c: SupervisorCaller, eventId: number): SupervisorAction {
  const { store } = c;
  const event = store.event(eventId);
  if (!event) throw new AppError('NOT_FOUND', 'no supervisor event with that id');
  const w = store.watchById(event.watch_id);
  if (!w) throw new AppError('WATCH_NOT_FOUND', 'the event\'s watch was removed');
  if (!(ACTIONABLE as readonly string[]).includes(event.event_type) || event.acknowledged_at !== null) {
    throw new AppError('ACTION_CONFLICT', 'only unacknowledged attention_required and error_detected events can be claimed');
  }
  requirePolicy(c, w);
  expireStale(c, w.id);
  const now = clockOf(c);
  const claim = store.insertClaim({ watchId: w.id, eventId, by: c.actor, expiresAt: now + SUPERVISOR_LIMITS.claimLeaseSeconds * 1000, now });
  if (!claim) throw new AppError('ACTION_CONFLICT', 'the watch already has an open action (another client claimed it)');
  const stopped = hardStop(c, w);
  if (stopped !== null) block(c, claim, stopped);
  const stop = stopPatternIn(event.output_preview, 'output that raised the event');
  if (stop !== null) block(c, claim, describeStop(stop));
  return actionView(store, claim);
}

function requireClaimant(c: SupervisorCaller, a: ActionRow): void {
  if (a.claimed_by !== c.actor) throw new AppError('ACTION_CONFLICT', 'the action was claimed by another client');
  if (a.claim_expires_at <= clockOf(c)) {
    c.store.casAction(a.id, a.state, 'expired', { blocked_reason: 'the claim lease expired' }, clockOf(c));
    throw new AppError('ACTION_CONFLICT', 'the claim lease expired: claim the event again');
  }
}

export async function submitDecision(c: SupervisorCaller, actionId: number, prompt: string): Promise<SupervisorAction> {
  const { store } = c;
  const a = current(store, actionId);
  if (a.state !== 'claimed') throw conflict(a, 'claimed');
  requireClaimant(c, a);
  const w = store.watchById(a.watch_id);
  if (!w) throw new AppError('WATCH_NOT_FOUND', 'the action\'s watch was removed');
  const policy = requirePolicy(c, w);
  const text = redactSecrets(prompt).text;
  const promptStop = stopPatternIn(text, 'proposed prompt') ?? stopPatternIn(prompt, 'proposed prompt');
  if (promptStop !== null) block(c, a, describeStop(promptStop));
  // Decision time: the pane as it is now, not as it was when the event was recorded.
  const { obs } = await c.engine.look(w);
  const outputStop = stopPatternIn(obs.preview, 'current output');
  if (outputStop !== null) block(c, a, describeStop(outputStop));
  const hash = sha(text);
  const repeats = policy.last_prompt_hash === hash ? policy.same_prompt_count : 0;
  if (repeats >= policy.same_prompt_repeat_limit) block(c, a, `same_prompt_repeat_limit ${policy.same_prompt_repeat_limit}: this prompt was already sent ${repeats} times in a row`);
  const now = clockOf(c);
  if (!store.casAction(a.id, 'claimed', 'decided', { prompt: text, prompt_hash: hash }, now)) throw conflict(current(store, a.id), 'claimed');
  // Auto-approval only for the exact template, byte for byte after redaction, and only
  // for a prompt the supervisor recognises as a plain "continue?" (auto-continue.ts);
  // anything else stays decided until a person reviews it.
  if (policy.mode === 'approved_auto_continue' && policy.approved_template !== null && policy.approved_template === text && autoContinueAllowed(obs.preview).ok) {
    store.casAction(a.id, 'decided', 'approved', { approved_by: AUTO_APPROVER }, now);
  }
  return actionView(store, current(store, a.id));
}

/** Who approves an action that the watch's approved_template approved. */
const AUTO_APPROVER = 'policy:approved_template';

/** Approve or reject a decided action. Separation of duties: the identity that claimed
 * (proposed) an action never approves it; identities come from authentication only
 * (policy/authority.ts), so a client cannot approve its own proposal under another name. */
export function reviewAction(c: SupervisorCaller, actionId: number, decision: 'approve' | 'reject'): SupervisorAction {
  const { store } = c;
  const a = current(store, actionId);
  if (a.state !== 'decided') throw conflict(a, 'decided');
  if (decision === 'approve' && a.claimed_by === c.actor) {
    throw new AppError('FORBIDDEN', 'the client that proposed this action cannot approve it', 'Another identity reviews it: the operator on the dashboard\'s Supervisor page, or another client with the input scope.');
  }
  const ok = decision === 'approve'
    ? store.casAction(a.id, 'decided', 'approved', { approved_by: c.actor }, clockOf(c))
    : store.casAction(a.id, 'decided', 'rejected', { approved_by: c.actor, blocked_reason: `rejected by ${c.actor}` }, clockOf(c));
  if (!ok) throw conflict(current(store, a.id), 'decided');
  return actionView(store, current(store, a.id));
}

/** `preflight` asks the input authorization whether this caller may type to the watch's
 * target at all (input/authorize.ts preflightInput) before anything here changes: a
 * caller who may not type leaves the action approved for one who may. */
export async function executeSend(c: SupervisorCaller, actionId: number, send: SendThroughInputPath, preflight: (watch: WatchRow) => void): Promise<ExecuteSendOutput> {
  const { store, config } = c;
  const a = current(store, actionId);
  if (a.state !== 'approved') return { sent: false, action: actionView(store, a) };
  if (!config.v2_enabled) throw new AppError('SUPERVISOR_BLOCKED', 'supervisor.v2_enabled is false: the operator turns it on in config.yaml');
  const w = store.watchById(a.watch_id);
  if (!w) throw new AppError('WATCH_NOT_FOUND', 'the action\'s watch was removed');
  preflight(w);
  const stopped = hardStop(c, w);
  if (stopped !== null) block(c, a, stopped);
  const { obs } = await c.engine.look(w);
  // An approval by the template holds only while the screen still shows a prompt the
  // supervisor may answer unattended (it may have changed since the decision).
  if (a.approved_by === AUTO_APPROVER) {
    const verdict = autoContinueAllowed(obs.preview);
    if (!verdict.ok) block(c, a, verdict.reason);
  }
  const now = clockOf(c);
  // The compare-and-swap that makes a second call, a retry or a restart type nothing.
  if (!store.casAction(a.id, 'approved', 'sent', { output_hash_at_send: obs.hash }, now)) {
    return { sent: false, action: actionView(store, current(store, a.id)) };
  }
  const policy = store.policy(w.id);
  store.updatePolicy(
    w.id,
    {
      auto_action_count: (policy?.auto_action_count ?? 0) + 1,
      first_action_at: policy?.first_action_at ?? now,
      same_prompt_count: policy?.last_prompt_hash === a.prompt_hash ? (policy?.same_prompt_count ?? 0) + 1 : 1,
      last_prompt_hash: a.prompt_hash,
    },
    now,
  );
  try {
    const out = await send(w, a.prompt ?? '', { actionId: a.id, proposedBy: a.claimed_by, approvedBy: a.approved_by ?? '' });
    store.casAction(a.id, 'sent', 'observing', { send_audit_id: out.audit_id, send_text_length: out.text_length }, clockOf(c));
    return { sent: true, action: actionView(store, current(store, a.id)) };
  } catch (err) {
    const code = err instanceof AppError ? err.code : 'INTERNAL';
    store.casAction(a.id, 'sent', 'failed', { blocked_reason: `the guarded send refused or failed (${code})` }, clockOf(c));
    throw err;
  }
}

export function listActions(c: SupervisorCaller, input: { watch_key?: string | undefined; open_only?: boolean | undefined; limit?: number | undefined }): ListActionsOutput {
  const { store } = c;
  const watchId = input.watch_key === undefined ? undefined : requireWatchKey(c, input.watch_key).id;
  const rows = store.listActions({ ...(watchId !== undefined ? { watchId } : {}), openOnly: input.open_only ?? false, limit: input.limit ?? 50 });
  return { actions: rows.map((a) => actionView(store, a)) };
}

/** At start: an action a dead broker left `sent` without a result is closed as failed
 * (delivery unknown; the input audit has the attempt), never re-sent. */
export function recoverSupervisorActions(store: SupervisorStore, now: number): number {
  let closed = 0;
  for (const a of store.listActions({ openOnly: true, limit: 10_000 })) {
    if (a.state === 'sent' && a.send_audit_id === null) {
      if (store.casAction(a.id, 'sent', 'failed', { blocked_reason: 'the broker stopped during the send: delivery unknown (see terminal_list_input_audit); not re-sent' }, now)) closed++;
    }
  }
  return closed;
}
