/**
 * terminal_input_context: everything an agent checks before typing, in one read-only
 * call — the pane's foreground command (and whether it is a shell, read from the pane's
 * process tree), copy mode, status, the last lines (sanitized and redacted), and which
 * gates would pass right now for a plain text and for Enter. It
 * shows pane content, so it needs read access like terminal_tail, and it is audited as a
 * read.
 */
import { AppError, INPUT_LIMITS, type GateVerdict, type InputContextOutput } from '@terminal-mcp/contract';
import { recordRead } from '../audit/record-read.js';
import type { BrokerContext } from '../rpc/context.js';
import { classifyPaneStatus } from '../policy/status.js';
import type { InputRequest } from '../policy/input.js';
import { cleanPaneText, readPaneTail } from '../reads/pane-text.js';
import { grantLookupOf } from '../grants/grant-lookup.js';
import { resolveReadableSession } from '../reads/read-gate.js';
import { assertCanReadTarget, grantOfTarget } from './access.js';
import { summarizeForeground } from '../policy/foreground.js';
import { decideForTarget, readTargetProcesses } from './attempt.js';
import { inputServices } from './services.js';
import { requireBoundTarget, targetOfSession, type ResolvedTarget, type TargetRef } from './target.js';

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

export async function inputContext(ctx: Pick<BrokerContext, 'deps' | 'role' | 'actor'>, ref: TargetRef): Promise<InputContextOutput> {
  const { deps } = ctx;
  const services = inputServices(deps);
  let target: ResolvedTarget;
  let sessionName: string | null = ref.session ?? null;
  try {
    if (ref.binding !== undefined) {
      const record = services.bindings.get(ref.binding);
      if (!record) throw new AppError('BINDING_NOT_FOUND', 'no binding has that name');
      sessionName = record.sessionName;
      if (!deps.config.permissions.terminal_read) throw new AppError('READ_DISABLED', 'reading terminals is turned off');
      target = await requireBoundTarget(record, deps.tmux, services.delivery);
      assertCanReadTarget(deps, target.sessionName, target.identity);
    } else {
      // THE read gate (whitelist or a grant pinned to this session).
      target = targetOfSession(await resolveReadableSession({ config: deps.config, tmux: deps.tmux, grants: grantLookupOf(deps) }, ref.session));
    }
    target = { ...target, grant: grantOfTarget(deps, target.sessionName, target.identity) };
  } catch (err) {
    recordRead(ctx, 'terminal_input_context', { session: sessionName, errorCode: err instanceof AppError ? err.code : 'INTERNAL' });
    throw err;
  }

  const paneId = target.identity.paneId;
  const count = INPUT_LIMITS.contextLines;
  // The tail is redacted before its rows are cut (reads/pane-text.ts), as every pane read.
  const [tail, screenRaw] = await Promise.all([readPaneTail(deps.tmux, paneId, count, true), deps.tmux.capturePane(paneId, { start: 0, end: '-' })]);
  const lines = tail.lines;
  const idleSeconds = target.activity === null ? Number.NaN : Math.max(0, Math.floor(Date.now() / 1000) - target.activity);
  const status = classifyPaneStatus({ lines: cleanPaneText(screenRaw, true).lines, currentCommand: target.currentCommand, inCopyMode: target.inCopyMode, idleSeconds });
  const processes = await readTargetProcesses(target);
  const foreground = summarizeForeground(processes);
  const probe = (request: InputRequest) => verdict(() => decideForTarget(deps.config, target, processes, request));
  recordRead(ctx, 'terminal_input_context', { session: target.sessionName, sessionId: target.identity.sessionId, paneId, lineCount: lines.length });
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
    text: lines.join('\n'),
    line_count: lines.length,
    redactions: tail.redactions,
    input_enabled: deps.config.permissions.terminal_input,
    gates: {
      text: probe({ kind: 'text', text: 'x' }),
      keys: probe({ kind: 'keys', keys: ['Enter'], confirmSensitive: false }),
    },
    max_text_length: deps.config.input_policy.max_text_length,
  };
}
