/**
 * Wait tools: block until a session's status reaches one of the wanted states, woken by
 * the pane's output in the broker (no polling by the model), for at most 20 s per call;
 * past that a PENDING answer carries a resume token for the next call. Read-only: they
 * read status like terminal_status and change nothing.
 */
import {
  resumeWaitInputSchema,
  resumeWaitInputShape,
  waitForStateInputSchema,
  waitForStateInputShape,
  waitResultSchema,
  WAIT_LIMITS,
  type WaitResult,
} from '@terminal-mcp/contract';
import { defineTool, READ_ONLY_ANNOTATIONS, type GatewayTool } from './define-tool.js';

const quoted = (text: string) => JSON.stringify(text);

export function renderWaitResult(r: WaitResult): string {
  const seconds = (r.waited_ms / 1000).toFixed(1);
  const now = `${r.status.status} (${r.status.reason})`;
  if (r.state !== 'PENDING') return `Session ${quoted(r.session)} reached ${r.state} after ${seconds}s: ${now}.`;
  return (
    `Session ${quoted(r.session)} is still ${now} after ${seconds}s, not yet ${r.states.join(' or ')}. ` +
    `PENDING: call terminal_resume_wait with resume_token ${quoted(r.resume_token ?? '')} to keep waiting (valid until ${r.resume_expires_at}).`
  );
}

const POLLING =
  `Each call waits at most ${WAIT_LIMITS.maxTimeoutSeconds} s (timeout_s); not reached by then: state PENDING and a resume_token ` +
  'for terminal_resume_wait (repeat while PENDING; valid 10 minutes after each answer).';

export const waitTools: readonly GatewayTool[] = [
  defineTool({
    name: 'terminal_wait_for_state',
    title: 'Wait for a terminal to reach a state',
    description:
      'Wait until a session\'s status is one of `states` (see terminal_status; WAITING_INPUT also matches WAITING_HUMAN), e.g. IDLE or WAITING_INPUT after starting a task. ' +
      `Returns as soon as it is, woken by the pane's output. ${POLLING} Needs access r for the session.`,
    inputShape: waitForStateInputShape,
    inputSchema: waitForStateInputSchema,
    aliases: { target: 'session', desired_states: 'states', timeout: 'timeout_s' },
    retired: {
      poll_interval: 'the wait is woken by the pane\'s output, it does not poll',
      tail_lines: 'the wait returns the status only; read text with terminal_tail',
    },
    outputSchema: waitResultSchema,
    // Automation loops on `state` and `resume_token`.
    publishOutputSchema: true,
    annotations: READ_ONLY_ANNOTATIONS,
    run: (args, { broker, signal }) => broker.wait.forState.query(args, { signal }),
    render: renderWaitResult,
  }),

  defineTool({
    name: 'terminal_resume_wait',
    title: 'Keep waiting for a terminal state',
    description:
      'Continue a wait that answered PENDING: same session and states, up to timeout_s more seconds. ' +
      'Returns the reached state, or PENDING again with the same resume_token. ' +
      'An unknown or expired token answers RESUME_TOKEN_INVALID: start a new terminal_wait_for_state.',
    inputShape: resumeWaitInputShape,
    inputSchema: resumeWaitInputSchema,
    aliases: { timeout: 'timeout_s' },
    retired: { poll_interval: 'the wait is woken by the pane\'s output, it does not poll' },
    outputSchema: waitResultSchema,
    publishOutputSchema: true,
    annotations: READ_ONLY_ANNOTATIONS,
    run: (args, { broker, signal }) => broker.wait.resume.query(args, { signal }),
    render: renderWaitResult,
  }),
];
