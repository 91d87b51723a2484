/**
 * Supervisor tools. v1 (supervisor_*): watches that notice a session waiting for input,
 * failing or finishing, as durable events. v2 (supervisor2_*): a guarded claim → decide →
 * approve → send queue per watch; the send goes through the same gates and audit as
 * terminal_send_text. Changing a watch or an action writes only supervisor.db.
 */
import {
  ackEventInputSchema,
  ackEventInputShape,
  ackEventOutputSchema,
  actionIdInputSchema,
  actionIdInputShape,
  actionSchema,
  claimEventInputSchema,
  claimEventInputShape,
  executeSendOutputSchema,
  listActionableInputSchema,
  listActionableInputShape,
  listActionsInputSchema,
  listActionsInputShape,
  listActionsOutputSchema,
  listEventsInputSchema,
  listEventsInputShape,
  listEventsOutputSchema,
  listWatchesOutputSchema,
  policySchema,
  reviewActionInputSchema,
  reviewActionInputShape,
  runOnceOutputSchema,
  setPolicyInputSchema,
  setPolicyInputShape,
  setVerifierPolicyInputSchema,
  setVerifierPolicyInputShape,
  submitDecisionInputSchema,
  submitDecisionInputShape,
  supervisorStatusSchema,
  unwatchOutputSchema,
  verifierPolicySchema,
  waitEventsInputSchema,
  waitEventsInputShape,
  waitEventsOutputSchema,
  watchInputSchema,
  watchInputShape,
  watchSchema,
  watchTargetInputSchema,
  watchTargetInputShape,
  type ListEventsOutput,
  type SupervisorAction,
  type SupervisorEvent,
  type SupervisorPolicy,
  type Watch,
} from '@terminal-mcp/contract';
import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { cellText, renderRecords } from '@terminal-mcp/mcp-kit';
import { defineTool, READ_ONLY_ANNOTATIONS, type GatewayTool } from './define-tool.js';
import { INPUT_ANNOTATIONS } from './input.js';

const CHANGE = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false } as const satisfies ToolAnnotations;
const EMPTY = z.object({}).strict();
const q = (t: string) => JSON.stringify(t);

/** The tables of the list tools (docs/tools.md): every field, except an event's output_hash
 * (the webhook body has it) and an action's send_result, given as its audit_id. */
const WATCH_COLUMNS = ['watch_key', 'kind', 'target', 'state', 'enabled', 'disabled_reason', 'iteration_count', 'failure_count', 'done_marker', 'source', 'policy_mode', 'verifier', 'updated_at'] as const;
const EVENT_COLUMNS = ['id', 'timestamp', 'watch_key', 'kind', 'target', 'previous_state', 'state', 'event_type', 'reason', 'output_preview', 'iteration_count', 'acknowledged_at', 'metadata'] as const;
const ACTION_COLUMNS = ['id', 'watch_key', 'event_id', 'state', 'claimed_by', 'claim_expires_at', 'prompt', 'approved_by', 'blocked_reason', 'audit_id', 'resulting_event_id', 'created_at', 'updated_at'] as const;
/** An event's metadata as one cell: k=v pairs (values as table cells). */
const eventRecord = (e: SupervisorEvent) => ({ ...e, metadata: Object.entries(e.metadata).map(([k, v]) => `${k}=${cellText(v)}`).join(' ') || null });
const eventTable = (events: readonly SupervisorEvent[]) => renderRecords(events.map(eventRecord), EVENT_COLUMNS, { keep: ['id'], empty: 'No events.' });

const renderWatch = (w: Watch) =>
  `${w.watch_key}: ${w.state}${w.enabled ? '' : ` (stopped: ${w.disabled_reason ?? 'disabled'})`}, policy ${w.policy_mode}, ${w.iteration_count} polls.`;
const renderEvents = (o: ListEventsOutput) => eventTable(o.events).join('\n');
const renderAction = (a: SupervisorAction) =>
  `Action ${a.id} on ${a.watch_key} (event ${a.event_id}): ${a.state}${a.blocked_reason ? ` — ${a.blocked_reason}` : ''}${a.prompt !== null ? `; prompt ${q(a.prompt)}` : ''}.`;
const renderPolicy = (p: SupervisorPolicy) =>
  `${p.watch_key}: ${p.mode}${p.blocked_reason ? ` BLOCKED (${p.blocked_reason})` : ''}; ${p.auto_action_count}/${p.max_auto_actions} auto actions.`;

const TARGET = 'Target: session or binding (exactly one).';

export const supervisorTools: readonly GatewayTool[] = [
  defineTool({
    name: 'supervisor_watch',
    title: 'Watch a session for attention',
    description: `Record events when a readable session starts waiting for input, shows an error, or prints the done_marker line. ${TARGET} Resumes a stopped watch.`,
    inputShape: watchInputShape,
    inputSchema: watchInputSchema,
    outputSchema: watchSchema,
    annotations: CHANGE,
    run: (args, { broker, signal }) => broker.supervisor.watch.mutate(args, { signal }),
    render: renderWatch,
  }),
  defineTool({
    name: 'supervisor_unwatch',
    title: 'Stop watching a session',
    description: `Remove a watch with its policy. ${TARGET}`,
    inputShape: watchTargetInputShape,
    inputSchema: watchTargetInputSchema,
    outputSchema: unwatchOutputSchema,
    annotations: CHANGE,
    run: (args, { broker, signal }) => broker.supervisor.unwatch.mutate(args, { signal }),
    render: (r) => `${r.watch_key}: ${r.removed ? 'removed' : 'not found'}.`,
  }),
  defineTool({
    name: 'supervisor_list_watches',
    title: 'List watches',
    description: 'Every watch with its state, policy and counters.',
    inputShape: {},
    inputSchema: EMPTY,
    outputSchema: listWatchesOutputSchema,
    annotations: READ_ONLY_ANNOTATIONS,
    run: (args, { broker, signal }) => broker.supervisor.listWatches.query(args, { signal }),
    render: (o) => renderRecords(o.watches, WATCH_COLUMNS, { keep: ['watch_key'], empty: 'No watches.' }).join('\n'),
  }),
  defineTool({
    name: 'supervisor_status',
    title: 'Supervisor status',
    description: 'Whether automatic evaluation runs, its settings, and counts of watches and unacknowledged events.',
    inputShape: {},
    inputSchema: EMPTY,
    outputSchema: supervisorStatusSchema,
    annotations: READ_ONLY_ANNOTATIONS,
    run: (args, { broker, signal }) => broker.supervisor.status.query(args, { signal }),
    render: (s) => `Supervisor ${s.running ? 'running' : 'not running'} (enabled ${s.enabled}, v2 ${s.v2_enabled}); ${s.enabled_watches}/${s.watches} watches on; ${s.unacknowledged_events} unacknowledged events.`,
  }),
  defineTool({
    name: 'supervisor_list_events',
    title: 'List supervisor events',
    description: 'Recorded events, newest first (oldest first with after_id). Previews are redacted.',
    inputShape: listEventsInputShape,
    inputSchema: listEventsInputSchema,
    outputSchema: listEventsOutputSchema,
    annotations: READ_ONLY_ANNOTATIONS,
    run: (args, { broker, signal }) => broker.supervisor.listEvents.query(args, { signal }),
    render: renderEvents,
  }),
  defineTool({
    name: 'supervisor_ack_event',
    title: 'Acknowledge an event',
    description: 'Mark an event seen. Types nothing.',
    inputShape: ackEventInputShape,
    inputSchema: ackEventInputSchema,
    outputSchema: ackEventOutputSchema,
    annotations: CHANGE,
    run: (args, { broker, signal }) => broker.supervisor.ackEvent.mutate(args, { signal }),
    render: (r) => `Event ${r.event_id} acknowledged at ${r.acknowledged_at}.`,
  }),
  defineTool({
    name: 'supervisor_run_once',
    title: 'Evaluate every watch now',
    description: 'One pass over all enabled watches; returns the events it recorded.',
    inputShape: {},
    inputSchema: EMPTY,
    outputSchema: runOnceOutputSchema,
    annotations: CHANGE,
    run: (args, { broker, signal }) => broker.supervisor.runOnce.mutate(args, { signal }),
    render: (r) => `${r.evaluated} watches evaluated.${r.events.length ? `\n${eventTable(r.events).join('\n')}` : ' No new events.'}`,
  }),
  defineTool({
    name: 'supervisor_wait_events',
    title: 'Wait for supervisor events',
    description: 'Block up to 20 s for events newer than after_id. PENDING: call again with next_after_id.',
    inputShape: waitEventsInputShape,
    inputSchema: waitEventsInputSchema,
    outputSchema: waitEventsOutputSchema,
    annotations: READ_ONLY_ANNOTATIONS,
    run: (args, { broker, signal }) => broker.supervisor.waitEvents.query(args, { signal }),
    render: (r) => (r.state === 'PENDING' ? `PENDING: no new events; call again with after_id ${r.next_after_id}.` : `${eventTable(r.events).join('\n')}\n\nnext_after_id ${r.next_after_id}`),
  }),
  defineTool({
    name: 'supervisor_set_verifier_policy',
    title: 'Set a watch\'s completion verifier',
    description:
      `How the broker checks an autonomous watch's DONE outside the pane: \`profile\` names one of the operator's verifier profiles (supervisor_status lists their ids), ` +
      `which fixes the git worktree, the clean check and the test command; require_commit_matches pins HEAD. ${TARGET}`,
    inputShape: setVerifierPolicyInputShape,
    inputSchema: setVerifierPolicyInputSchema,
    retired: Object.fromEntries(
      ['test_command', 'worktree', 'require_git_clean', 'timeout_seconds'].map((name) => [
        name,
        'a client no longer chooses commands, directories or timeouts: pass `profile`, the id of an operator-configured supervisor.verifier_profiles entry (supervisor_status lists them)',
      ]),
    ),
    outputSchema: verifierPolicySchema,
    annotations: CHANGE,
    run: (args, { broker, signal }) => broker.supervisor.setVerifierPolicy.mutate(args, { signal }),
    render: (p) =>
      `${p.watch_key}: verify with profile ${q(p.profile)}${p.require_git_clean ? ', clean worktree' : ''}${p.require_commit_matches ? `, HEAD ${p.require_commit_matches}` : ''}${p.runs_test_command ? ', runs its test command' : ''}.`,
  }),

  defineTool({
    name: 'supervisor2_set_policy',
    title: 'Set a watch\'s automation policy',
    description: `observe_only (default), suggest_only (human approves each send) or approved_auto_continue (only approved_template auto-approves). Resets counters and blocks. ${TARGET}`,
    inputShape: setPolicyInputShape,
    inputSchema: setPolicyInputSchema,
    outputSchema: policySchema,
    annotations: CHANGE,
    run: (args, { broker, signal }) => broker.supervisor2.setPolicy.mutate(args, { signal }),
    render: renderPolicy,
  }),
  defineTool({
    name: 'supervisor2_get_policy',
    title: 'Show a watch\'s policy',
    description: `Mode, limits, counters and blocked_reason. ${TARGET}`,
    inputShape: watchTargetInputShape,
    inputSchema: watchTargetInputSchema,
    outputSchema: policySchema,
    annotations: READ_ONLY_ANNOTATIONS,
    run: (args, { broker, signal }) => broker.supervisor2.getPolicy.query(args, { signal }),
    render: renderPolicy,
  }),
  defineTool({
    name: 'supervisor2_list_actionable_events',
    title: 'List claimable events',
    description: 'Unacknowledged attention/error events of opted-in, unblocked watches with no open action.',
    inputShape: listActionableInputShape,
    inputSchema: listActionableInputSchema,
    outputSchema: listEventsOutputSchema,
    annotations: READ_ONLY_ANNOTATIONS,
    run: (args, { broker, signal }) => broker.supervisor2.listActionableEvents.query(args, { signal }),
    render: renderEvents,
  }),
  defineTool({
    name: 'supervisor2_claim_event',
    title: 'Claim an event',
    description: 'Open the watch\'s one action for 5 minutes. Credential, confirmation or destructive output blocks it (SUPERVISOR_BLOCKED).',
    inputShape: claimEventInputShape,
    inputSchema: claimEventInputSchema,
    outputSchema: actionSchema,
    annotations: CHANGE,
    run: (args, { broker, signal }) => broker.supervisor2.claimEvent.mutate(args, { signal }),
    render: renderAction,
  }),
  defineTool({
    name: 'supervisor2_submit_decision',
    title: 'Propose the prompt for a claimed action',
    description: 'Prompt (redacted) to type. Screened with the pane\'s current output; auto-approved only when equal to the template.',
    inputShape: submitDecisionInputShape,
    inputSchema: submitDecisionInputSchema,
    outputSchema: actionSchema,
    annotations: CHANGE,
    run: (args, { broker, signal }) => broker.supervisor2.submitDecision.mutate(args, { signal }),
    render: renderAction,
  }),
  defineTool({
    name: 'supervisor2_review_action',
    title: 'Approve or reject a decided action',
    description: 'A human review of the proposed prompt.',
    inputShape: reviewActionInputShape,
    inputSchema: reviewActionInputSchema,
    outputSchema: actionSchema,
    annotations: CHANGE,
    run: (args, { broker, signal }) => broker.supervisor2.reviewAction.mutate(args, { signal }),
    render: renderAction,
  }),
  defineTool({
    name: 'supervisor2_execute_send',
    title: 'Type an approved action',
    description: 'Type the approved prompt and Enter through terminal_send_text\'s gates and audit. At most once: a repeat returns sent: false.',
    inputShape: actionIdInputShape,
    inputSchema: actionIdInputSchema,
    outputSchema: executeSendOutputSchema,
    annotations: INPUT_ANNOTATIONS,
    delivers: true,
    run: (args, { broker, signal }) => broker.supervisor2.executeSend.mutate(args, { signal }),
    render: (r) => `${r.sent ? 'Sent' : 'Not sent'}: ${renderAction(r.action)}`,
  }),
  defineTool({
    name: 'supervisor2_list_actions',
    title: 'List supervisor actions',
    description: 'Actions newest first: claim, prompt, approval, send result, outcome.',
    inputShape: listActionsInputShape,
    inputSchema: listActionsInputSchema,
    outputSchema: listActionsOutputSchema,
    annotations: READ_ONLY_ANNOTATIONS,
    run: (args, { broker, signal }) => broker.supervisor2.listActions.query(args, { signal }),
    render: (o) => renderRecords(o.actions.map((a) => ({ ...a, audit_id: a.send_result?.audit_id ?? null })), ACTION_COLUMNS, { keep: ['id'], empty: 'No actions.' }).join('\n'),
  }),
];
