/**
 * Handing a pane to a person: an agent that meets a password, passphrase or one-time-code
 * prompt (terminal_status WAITING_HUMAN) may not answer it, so it asks the operator, who
 * answers through the dashboard's secret entry. The broker checks the session is readable
 * and leaves a notice (dashboard, notification channels); nothing is typed.
 */
import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import {
  notifyUserInputSchema,
  notifyUserInputShape,
  notifyUserOutputSchema,
  requestHumanInputSchema,
  requestHumanInputShape,
  requestHumanOutputSchema,
  type NotifyUserOutput,
  type RequestHumanOutput,
} from '@terminal-mcp/contract';
import { defineTool, type GatewayTool } from './define-tool.js';

/** Changes nothing on the host, but reaches a person: not read-only, never destructive. */
const NOTIFIES = { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const satisfies ToolAnnotations;

const renderRequest = (r: RequestHumanOutput) =>
  `The operator was asked to take over session ${JSON.stringify(r.session)} (request ${r.request_id}; status now ${r.status}). ` +
  'Wait for the prompt to be answered (terminal_wait_for_state) before sending more input.';

export const humanTools: readonly GatewayTool[] = [
  defineTool({
    name: 'terminal_request_human',
    title: 'Ask the operator to answer a prompt',
    description:
      'Ask the person to take over a session, e.g. WAITING_HUMAN at a password/passphrase/OTP prompt no agent may answer; ' +
      'they are notified and answer in the dashboard. reason: what and why, never a secret. Needs access r.',
    inputShape: requestHumanInputShape,
    inputSchema: requestHumanInputSchema,
    outputSchema: requestHumanOutputSchema,
    annotations: NOTIFIES,
    run: (args, { broker }) => broker.human.request.mutate(args),
    render: renderRequest,
  }),

  defineTool({
    name: 'notify_user',
    title: 'Notify the operator',
    description:
      'Ask the person for attention with one line (done, a question, a problem): dashboard and push/webhook channels, redacted. ' +
      'Rate-limited per client (RATE_LIMITED: wait).',
    inputShape: notifyUserInputShape,
    inputSchema: notifyUserInputSchema,
    outputSchema: notifyUserOutputSchema,
    annotations: { ...NOTIFIES, idempotentHint: false },
    run: (args, { broker }) => broker.human.notify.mutate(args),
    render: (r: NotifyUserOutput) => (r.deduplicated ? 'The same notice was sent moments ago; not sent again.' : `The operator was notified (notice ${r.notice_id}).`),
  }),
];
