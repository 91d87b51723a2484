/**
 * Handing a pane to a person: an agent that meets a password, passphrase or one-time-code
 * prompt (terminal_status WAITING_HUMAN) may not answer it, so it asks the operator, who
 * answers through the dashboard's secret entry. The broker checks the session is readable
 * and leaves a notice (dashboard, notification channels); nothing is typed.
 */
import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { requestHumanInputSchema, requestHumanInputShape, requestHumanOutputSchema, type RequestHumanOutput } from '@terminal-mcp/contract';
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
      'Ask the person to take over a session, e.g. one WAITING_HUMAN at a password, passphrase or one-time-code prompt, which no agent may answer. ' +
      'They are notified and answer in the dashboard. reason: what to type and why (never a secret). Needs access r.',
    inputShape: requestHumanInputShape,
    inputSchema: requestHumanInputSchema,
    outputSchema: requestHumanOutputSchema,
    annotations: NOTIFIES,
    run: (args, { broker }) => broker.human.request.mutate(args),
    render: renderRequest,
  }),
];
