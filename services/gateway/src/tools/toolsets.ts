/**
 * Which toolset each gateway tool belongs to (the families of shared/contract toolsets.ts).
 * One table, so a reader sees what a config line such as `oauth: [core, input]` lists, and
 * the catalogue budget test (test/src/tool-catalogue.test.ts) measures every combination.
 * A new tool is added to exactly one toolset here (a test fails otherwise).
 */
import type { GatewayToolset } from '@terminal-mcp/contract';

export const TOOLSET_TOOLS: Readonly<Record<GatewayToolset, readonly string[]>> = {
  /** Find sessions, read them, wait for them: what every client starts with. */
  core: ['terminal_list_sessions', 'terminal_list_panes', 'terminal_tail', 'terminal_capture', 'terminal_status', 'terminal_batch_inspect', 'terminal_wait_for_state', 'terminal_resume_wait', 'terminal_node_health'],
  /** Type into sessions, see whether input would be accepted, the caller's input audit, wait for a
   * person's review, and hand a prompt no agent may answer (a password) to the person. */
  input: ['terminal_input_context', 'terminal_send_task', 'terminal_run', 'terminal_send_text', 'terminal_send_keys', 'terminal_list_input_audit', 'terminal_wait_for_approval', 'terminal_request_human', 'notify_user'],
  /** Read what is new since a cursor, export a recording (needs transcripts on). */
  transcripts: ['terminal_read_since', 'terminal_export_transcript'],
  /** Named, identity-pinned targets for multi-agent setups. */
  bindings: ['terminal_bind', 'terminal_get_binding', 'terminal_list_bindings', 'terminal_unbind', 'terminal_tail_bound', 'terminal_status_bound', 'terminal_send_bound'],
  supervisor: [
    'supervisor_watch',
    'supervisor_unwatch',
    'supervisor_list_watches',
    'supervisor_status',
    'supervisor_list_events',
    'supervisor_ack_event',
    'supervisor_run_once',
    'supervisor_wait_events',
    'supervisor_set_verifier_policy',
    'supervisor2_set_policy',
    'supervisor2_get_policy',
    'supervisor2_list_actionable_events',
    'supervisor2_claim_event',
    'supervisor2_submit_decision',
    'supervisor2_review_action',
    'supervisor2_execute_send',
    'supervisor2_list_actions',
  ],
  notes: [
    'note_create',
    'note_search',
    'note_get',
    'note_list',
    'note_update',
    'note_delete',
    'note_restore',
    'note_add_attachment',
    'note_remove_attachment',
    'note_link_to_project',
    'note_mark_applied',
    'note_facets',
  ],
  projects: ['project_check', 'project_dispatch', 'deploy_preview'],
  /** Start, close, restart and resize sessions from the operator's launch profiles. */
  lifecycle: ['terminal_session_start', 'terminal_session_close', 'terminal_session_restart', 'terminal_session_forget', 'terminal_resize'],
};

const TOOLSET_OF: ReadonlyMap<string, GatewayToolset> = new Map(Object.entries(TOOLSET_TOOLS).flatMap(([set, names]) => names.map((n) => [n, set as GatewayToolset] as const)));

/** The toolset a tool belongs to (undefined for a name in no toolset: a test forbids that). */
export function toolsetOf(toolName: string): GatewayToolset | undefined {
  return TOOLSET_OF.get(toolName);
}
