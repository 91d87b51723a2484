/** terminal_send_text, terminal_send_bound and terminal_send_keys: one attempt each (see
 * attempt.ts); refusals and failures are thrown as our error codes after being audited. */
import {
  AppError,
  type ErrorCode,
  type SendKeysOutput,
  type SendTextOutput,
} from '@terminal-mcp/contract';
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
  args: { target: TargetRef; text: string; enter: boolean; dryRun: boolean; tool: string; review?: AttemptSpec['review']; pinned?: AttemptSpec['pinned'] },
): Promise<SendTextOutput> {
  const result = await runInputAttempt<SendTextOutput>(
    caller,
    {
      tool: args.tool,
      target: args.target,
      request: { kind: 'text', text: args.text, submit: args.enter },
      dryRun: args.dryRun,
      queueable: true,
      ...(args.review ? { review: args.review } : {}),
      ...(args.pinned ? { pinned: args.pinned } : {}),
    },
    async ({ target, live, decision, auditId, services }) => {
      if (decision.action !== 'paste_text') throw new AppError('INTERNAL', 'unexpected input decision');
      const base = {
        ...targetFields(target),
        audit_id: auditId,
        text_length: Array.from(decision.text).length,
        crlf_normalized: decision.crlfNormalized,
      };
      const sent = await pasteThenEnter({ target, live, services }, decision.text, args.enter);
      return { decision: sent.decision, errorCode: sent.errorCode, value: { ...base, result: 'SENT', enter_pressed: sent.enterPressed } };
    },
  );
  return settle(
    result,
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
