/** terminal_send_text, terminal_send_bound and terminal_send_keys: one attempt each (see
 * attempt.ts); refusals and failures are thrown as our error codes after being audited.
 * A text submitted (enter) into a shell whose line the broker can read goes only onto an
 * empty line or the caller's own partial typing (input-line.ts); terminal_send_text takes
 * an idempotency key (replay.ts). */
import {
  AppError,
  sendTextOutputSchema,
  type ErrorCode,
  type SendKeysOutput,
  type SendTextOutput,
} from '@terminal-mcp/contract';
import { checkLineBeforeSubmit, integratedShellAtPrompt, lineOwner, type LineRefusal } from './input-line.js';
import { idempotencyOf, sentEarlier } from './replay.js';
import { classifyDelivery } from './attempt-outcome.js';
import { authorizedForeground, runInputAttempt, type ActContext, type ActOutcome, type AttemptCaller, type AttemptResult, type AttemptSpec } from './attempt.js';
import type { ResolvedTarget, TargetRef } from '../access/target.js';
import { countCharacters, normalizeNewlines } from '../policy/input.js';

function targetFields(t: ResolvedTarget) {
  return { session: t.sessionName, session_id: t.identity.sessionId, pane_id: t.identity.paneId, binding: t.binding?.name ?? null };
}

/** Delivery failures: TMUX_UNAVAILABLE when nothing was typed, DELIVERY_UNKNOWN (with the
 * audit id) when something may have been. */
function deliveryError(outcome: ActOutcome<unknown>, auditId: number): AppError {
  if (outcome.errorCode === 'IDENTITY_CHANGED') {
    return new AppError(
      'IDENTITY_CHANGED',
      "the pane's foreground program changed between the check and the delivery: nothing more was typed",
      'Another program took the pane while sending: see what runs now with terminal_input_context, then send again if it is the one you mean.',
    );
  }
  return outcome.decision === 'FAILED'
    ? new AppError('TMUX_UNAVAILABLE', 'tmux refused the input; nothing was typed')
    : new AppError('DELIVERY_UNKNOWN', `tmux stopped answering mid-send: the input may or may not have reached the pane (audit id ${auditId})`);
}

function settle<T>(
  result: AttemptResult<T>,
  dryRun: (r: Extract<AttemptResult<T>, { kind: 'dry_run' }>) => T,
  queued: (r: Extract<AttemptResult<T>, { kind: 'queued' }>) => T,
): T {
  switch (result.kind) {
    case 'queued':
      return queued(result);
    case 'blocked':
      throw result.error;
    case 'dry_run':
      return dryRun(result);
    case 'replayed':
      throw new AppError('INTERNAL', 'unexpected idempotent replay');
    case 'acted':
      if (result.outcome.decision !== 'SENT') throw deliveryError(result.outcome, result.auditId);
      return result.outcome.value;
  }
}

/**
 * The act of a text send (terminal_send_text, terminal_send_bound, the dashboard's secret
 * entry): paste the text, with Enter when asked in the same tmux step, under tmux's
 * last-instant foreground check (effects/tmux/deliver.ts pasteSubmit).
 */
export async function pasteThenEnter(
  { target, live, services }: Pick<ActContext, 'target' | 'live' | 'services'>,
  text: string,
  enter: boolean,
): Promise<{ decision: ActOutcome<unknown>['decision']; errorCode: ErrorCode | null; enterPressed: boolean }> {
  const expected = authorizedForeground(live);
  if (enter) {
    // The text and its Enter in one tmux step: a connection that drops mid-send cannot
    // leave the text on the line without its Enter (to be glued to the next input).
    const submitted = await services.delivery.pasteSubmit(target.identity.paneId, text, expected);
    return submitted.ok ? { decision: 'SENT', errorCode: null, enterPressed: true } : { ...classifyDelivery(submitted), enterPressed: false };
  }
  const pasted = await services.delivery.pasteText(target.identity.paneId, text, expected);
  if (!pasted.ok) return { ...classifyDelivery(pasted), enterPressed: false };
  return { decision: 'SENT', errorCode: null, enterPressed: false };
}

export async function sendText(
  caller: AttemptCaller,
  args: {
    target: TargetRef;
    text: string;
    enter: boolean;
    dryRun: boolean;
    tool: string;
    review?: AttemptSpec['review'];
    pinned?: AttemptSpec['pinned'];
    clearLine?: boolean;
    idempotencyKey?: string;
  },
): Promise<SendTextOutput> {
  const clearLine = args.clearLine === true;
  const idempotency = idempotencyOf(caller, args.idempotencyKey, [args.tool, args.target.session ?? null, args.target.binding ?? null, args.target.pane ?? null, args.text, args.enter]);
  const result = await runInputAttempt<SendTextOutput | LineRefusal>(
    caller,
    {
      tool: args.tool,
      target: args.target,
      request: { kind: 'text', text: args.text, submit: args.enter },
      dryRun: args.dryRun,
      queueable: true,
      ...(args.review ? { review: args.review } : {}),
      ...(args.pinned ? { pinned: args.pinned } : {}),
      ...(idempotency ? { idempotency } : {}),
    },
    async (ctx) => {
      const { target, live, decision, auditId, services } = ctx;
      if (decision.action !== 'paste_text') throw new AppError('INTERNAL', 'unexpected input decision');
      const base = {
        ...targetFields(target),
        audit_id: auditId,
        text_length: Array.from(decision.text).length,
        crlf_normalized: decision.crlfNormalized,
      };
      // A shell at its prompt whose line the broker can read: a submit goes only onto an
      // empty line or this caller's own typing since the prompt (input-line.ts).
      const owner = lineOwner(caller);
      const shell = args.enter || clearLine ? await integratedShellAtPrompt(ctx) : null;
      if (shell !== null) {
        const refusal = await checkLineBeforeSubmit(ctx, shell, clearLine, args.enter ? owner : null, 'submitting this text');
        if (refusal !== null) return { decision: 'FAILED', errorCode: refusal.refused.code, value: refusal };
      }
      const sent = await pasteThenEnter({ target, live, services }, decision.text, args.enter);
      const value: SendTextOutput = { ...base, result: 'SENT', enter_pressed: sent.enterPressed };
      if (sent.decision === 'SENT' && !args.enter) {
        // Partial typing: remembered for this caller's submit that follows.
        const at = shell ?? (await integratedShellAtPrompt(ctx));
        if (at !== null) services.shells?.noteTyped(at.key, owner, decision.text, clearLine);
      }
      // The answer is kept for a replay of the key; a cleared line is audited.
      const receipt = { ...(idempotency ? value : {}), ...(clearLine && shell !== null ? { cleared_line: true } : {}) };
      return { decision: sent.decision, errorCode: sent.errorCode, value, ...(Object.keys(receipt).length > 0 ? { receiptJson: JSON.stringify(receipt) } : {}) };
    },
  );
  if (result.kind === 'replayed') {
    const earlier = sentEarlier(result);
    const parsed = earlier.receiptJson === null ? null : sendTextOutputSchema.safeParse(JSON.parse(earlier.receiptJson));
    if (parsed?.success) return { ...parsed.data, replayed: true };
    throw new AppError('DELIVERY_UNKNOWN', `the earlier call with this idempotency_key (audit id ${earlier.id}) typed its text; its answer was not kept, and nothing was typed again now`);
  }
  if (result.kind === 'acted' && 'refused' in result.outcome.value) {
    const { code, message, hint } = result.outcome.value.refused;
    throw new AppError(code, message, hint);
  }
  return settle(
    result as AttemptResult<SendTextOutput>,
    (r) => {
      if (r.decision.action !== 'paste_text') throw new AppError('INTERNAL', 'unexpected input decision');
      return {
        ...targetFields(r.target),
        result: 'DRY_RUN',
        audit_id: r.auditId,
        text_length: Array.from(r.decision.text).length,
        crlf_normalized: r.decision.crlfNormalized,
        enter_pressed: false,
      };
    },
    (r) => {
      const normalized = normalizeNewlines(args.text);
      return {
        ...targetFields(r.target),
        result: 'QUEUED',
        approval_id: r.auditId,
        audit_id: r.auditId,
        text_length: countCharacters(normalized.text),
        crlf_normalized: normalized.crlfNormalized,
        enter_pressed: false,
      };
    },
  );
}

export async function sendKeys(
  caller: AttemptCaller,
  args: { target: TargetRef; keys: readonly string[]; confirmSensitive: boolean; dryRun: boolean; tool?: string },
): Promise<SendKeysOutput> {
  const result = await runInputAttempt<SendKeysOutput>(
    caller,
    { tool: args.tool ?? 'terminal_send_keys', target: args.target, request: { kind: 'keys', keys: args.keys, confirmSensitive: args.confirmSensitive }, dryRun: args.dryRun, queueable: true },
    async ({ target, live, decision, auditId, services }) => {
      const paneId = target.identity.paneId;
      let delivered;
      let value: SendKeysOutput;
      if (decision.action === 'exit_copy_mode') {
        delivered = await services.delivery.exitCopyMode(paneId);
        value = { ...targetFields(target), result: 'SENT', audit_id: auditId, keys: ['q'], action: 'exit_copy_mode' };
      } else if (decision.action === 'press_keys') {
        delivered = await services.delivery.pressKeys(paneId, decision.keys, authorizedForeground(live));
        value = { ...targetFields(target), result: 'SENT', audit_id: auditId, keys: [...decision.keys], action: 'keys' };
      } else {
        throw new AppError('INTERNAL', 'unexpected input decision');
      }
      return { ...classifyDelivery(delivered), value };
    },
  );
  return settle(
    result,
    (r) => ({
      ...targetFields(r.target),
      result: 'DRY_RUN',
      audit_id: r.auditId,
      keys: r.decision.action === 'press_keys' ? [...r.decision.keys] : ['q'],
      action: r.decision.action === 'exit_copy_mode' ? 'exit_copy_mode' : 'keys',
    }),
    (r) => ({ ...targetFields(r.target), result: 'QUEUED', approval_id: r.auditId, audit_id: r.auditId, keys: [...args.keys], action: 'keys' }),
  );
}
