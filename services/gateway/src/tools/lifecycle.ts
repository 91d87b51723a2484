/**
 * Session lifecycle tools (toolset `lifecycle`, not in the default catalogue): start a
 * session from one of the operator's launch profiles, close or restart one a profile
 * started, resize a window, forget a gone session (its registry rows become tombstones).
 * No tool takes a command line: the profile is the command. Each is off until
 * permissions.session_lifecycle, audited like input; close, restart and forget are dry runs
 * unless `confirm: true`, pinned to the session_id the caller saw.
 */
import {
  sessionCloseOutputSchema,
  sessionForgetOutputSchema,
  sessionPinnedInputShape,
  sessionResizeInputShape,
  sessionResizeOutputSchema,
  sessionRestartOutputSchema,
  sessionStartInputShape,
  sessionStartOutputSchema,
} from '@terminal-mcp/contract';
import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { defineTool, type GatewayTool } from './define-tool.js';

const quoted = (text: string) => JSON.stringify(text);
/** Starting and resizing change the host but destroy nothing. */
const CHANGES_HOST = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false } as const satisfies ToolAnnotations;
/** Forgetting ends nothing that runs, and the row stays as a tombstone; again is a refusal. */
const TOMBSTONES = { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const satisfies ToolAnnotations;
/** Closing and restarting end a running program. */
const ENDS_PROGRAM = { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false } as const satisfies ToolAnnotations;

export const lifecycleTools: readonly GatewayTool[] = [
  defineTool({
    name: 'terminal_session_start',
    title: 'Start a session from a launch profile',
    description: 'Start a session running an operator launch profile (never a command you give). Returns its session_id.',
    inputShape: sessionStartInputShape,
    outputSchema: sessionStartOutputSchema,
    annotations: CHANGES_HOST,
    run: (args, { broker, signal }) => broker.lifecycle.start.mutate(args, { signal }),
    render: (r) =>
      `${r.result} ${quoted(r.session)} (${r.session_id ?? 'not started'}, pane ${r.pane_id ?? '-'}) from profile ${r.profile} in ${r.cwd}; foreground ${r.foreground ?? '-'}; audit ${r.audit_id}` +
      (r.prompt ? `; prompt ${r.prompt.result}${r.prompt.error_code ? ` (${r.prompt.error_code})` : ''}` : ''),
  }),
  defineTool({
    name: 'terminal_session_close',
    title: 'Close a session a profile started',
    description: 'Kill a session started by a launch profile. Pass the session_id you saw; dry run unless confirm: true.',
    inputShape: sessionPinnedInputShape,
    outputSchema: sessionCloseOutputSchema,
    annotations: ENDS_PROGRAM,
    run: (args, { broker, signal }) => broker.lifecycle.close.mutate(args, { signal }),
    render: (r) => `${r.result} ${quoted(r.session)} (${r.session_id}${r.profile ? `, profile ${r.profile}` : ''}); audit ${r.audit_id}`,
  }),
  defineTool({
    name: 'terminal_session_restart',
    title: 'Restart a session a profile started',
    description: 'Kill and start again: same profile, name and cwd, new session_id. Dry run unless confirm: true.',
    inputShape: sessionPinnedInputShape,
    outputSchema: sessionRestartOutputSchema,
    annotations: ENDS_PROGRAM,
    run: (args, { broker, signal }) => broker.lifecycle.restart.mutate(args, { signal }),
    render: (r) => `${r.result} ${quoted(r.session)} (${r.previous_session_id} → ${r.session_id ?? '-'}, profile ${r.profile}); foreground ${r.foreground ?? '-'}; audit ${r.audit_id}`,
  }),
  defineTool({
    name: 'terminal_session_forget',
    title: 'Forget a gone session',
    description: 'Tombstone a gone session in the registry (include_dead lists them), by name and session_id; never one alive, protected, or with notes. Dry run unless confirm: true.',
    inputShape: sessionPinnedInputShape,
    outputSchema: sessionForgetOutputSchema,
    annotations: TOMBSTONES,
    run: (args, { broker, signal }) => broker.lifecycle.forget.mutate(args, { signal }),
    render: (r) => `${r.result} ${quoted(r.session)} (${r.session_id}): ${r.rows} registry row(s); audit ${r.audit_id}`,
  }),
  defineTool({
    name: 'terminal_resize',
    title: 'Resize a session window',
    description: "Set a session's window size (width 20-500, height 5-200).",
    inputShape: sessionResizeInputShape,
    outputSchema: sessionResizeOutputSchema,
    annotations: CHANGES_HOST,
    run: (args, { broker, signal }) => broker.lifecycle.resize.mutate(args, { signal }),
    render: (r) => `${quoted(r.session)} (${r.session_id}) is ${r.width}x${r.height}; audit ${r.audit_id}`,
  }),
];
