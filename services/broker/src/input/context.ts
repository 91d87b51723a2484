/**
 * terminal_input_context: everything an agent checks before typing, in one read-only
 * call — the pane's foreground command (and whether it is a shell, read from the pane's
 * process tree), copy mode, status, the last lines (sanitized and redacted), and which
 * gates would pass right now for a plain text and for Enter. It
 * shows pane content, so it needs read access like terminal_tail, and it is audited as a
 * read. On a node (`node:session`, input/node-route.ts) the caller carries the node's gate,
 * reader and process-tree read, and the audit row names `node:session`.
 */
import { AppError, INPUT_LIMITS, type GateVerdict, type InputContextOutput } from '@terminal-mcp/contract';
import { recordRead } from '../audit/record-read.js';
import type { InputCaller } from './input-deps.js';
import { answerOn, routeInput } from './node-route.js';
import { qualify } from '../nodes/node-names.js';
import { boundOrNull, type ReadableTarget, type TargetRef } from '../access/target.js';
import type { InputRequest } from '../policy/input.js';
import { summarizeForeground } from '../policy/foreground.js';
import { readTargetProcesses } from './attempt.js';

/** Input into a shell is operator-level access: the pane inherits $TMUX, so one typed
 * `tmux capture-pane -t other` reads any session, past every read rule. */
export const SHELL_WARNING =
  'the foreground is a shell: input here can run any command, including tmux commands that read or type into every session on this tmux server';

function verdict(run: () => unknown): GateVerdict {
  try {
    run();
    return { allowed: true, error_code: null, message: null };
  } catch (err) {
    if (err instanceof AppError) return { allowed: false, error_code: err.code, message: err.message };
    throw err;
  }
}

/** terminal_input_context on this host or on the node `ref` names. */
export function inputContextOf(ctx: InputCaller, ref: TargetRef): Promise<InputContextOutput> {
  const route = routeInput(ctx, ref);
  // Resolved once: the answer is named by the same Host the call went to.
  return answerOn(route.host, () => inputContext(route.caller, route.target, route.node));
}

async function inputContext(ctx: InputCaller, ref: TargetRef, node?: string): Promise<InputContextOutput> {
  const { deps } = ctx;
  let target: ReadableTarget;
  // As audited: `node:session` on a node (a binding's record names its node).
  const sessionName: string | null = ref.binding !== undefined ? boundOrNull(deps.input.bindings.get(ref.binding)) : qualify(node, ref.session);
  try {
    // THE read gate, by name or binding, exactly as terminal_tail and terminal_tail_bound.
    target = await deps.access.readableRef(ref);
  } catch (err) {
    recordRead(ctx, 'terminal_input_context', { session: sessionName, errorCode: err instanceof AppError ? err.code : 'INTERNAL' });
    throw err;
  }

  const paneId = target.identity.paneId;
  // The same reader as terminal_tail / terminal_status: redacted before the rows are cut,
  // quiet time from `#{window_activity}`.
  const [tail, status] = await Promise.all([deps.reader.tailOf(target, INPUT_LIMITS.contextLines, true), deps.reader.statusOf(target)]);
  // On a node, its process tree is read on the node (the caller's input services).
  const processes = await readTargetProcesses(target, deps.input);
  const foreground = summarizeForeground(processes);
  const probe = (request: InputRequest) => verdict(() => deps.access.decideInput(target, processes, request));
  recordRead(ctx, 'terminal_input_context', { session: qualify(node, target.sessionName), sessionId: qualify(node, target.identity.sessionId), paneId, lineCount: tail.line_count });
  return {
    session: target.sessionName,
    session_id: target.identity.sessionId,
    pane_id: paneId,
    binding: target.binding?.name ?? null,
    current_command: target.currentCommand,
    foreground_program: foreground.program,
    foreground_is_shell: foreground.isShell,
    warning: foreground.isShell ? SHELL_WARNING : null,
    in_copy_mode: target.inCopyMode,
    status: status.status,
    status_reason: status.reason,
    text: tail.text,
    line_count: tail.line_count,
    redactions: tail.redactions,
    input_enabled: deps.config.permissions.terminal_input,
    gates: {
      text: probe({ kind: 'text', text: 'x' }),
      keys: probe({ kind: 'keys', keys: ['Enter'], confirmSensitive: false }),
    },
    max_text_length: deps.config.input_policy.max_text_length,
  };
}
