/**
 * terminal_send_task: type a task, check it landed in the input line, press Enter ONCE,
 * and report what the pane showed:
 * - SUBMIT_CONFIRMED: after Enter the typed text left the input line (the prompt line was
 *   consumed), the cursor moved on to a new line, the foreground command changed, or the
 *   status became RUNNING, within SUBMIT_WAIT_MS; the evidence is re-checked once after
 *   SETTLE_MS so a continuation prompt drawn a moment after the newline is not missed;
 * - NEEDS_ENTER: after Enter the program waits at a continuation prompt (`... `, `> `)
 *   right below the typed text: nothing ran yet, one more Enter is needed (never pressed
 *   by this tool);
 * - DELIVERY_UNKNOWN: the text was not seen in the input line (Enter is then NOT pressed),
 *   or after Enter nothing showed the task was taken, or tmux stopped answering;
 * - BLOCKED: a gate refused (error_code says which); nothing was typed.
 * Text is never re-sent after Enter, whatever happens. The same idempotency key (per
 * caller role) within 24 hours returns the first receipt and sends nothing; a key whose
 * attempt sent nothing (blocked, or refused by tmux) is free again.
 */
import {
  AppError,
  ERROR_SPECS,
  taskReceiptSchema,
  type TaskReceipt,
  type TaskReceiptKind,
} from '@terminal-mcp/contract';
import { hmacText } from '../audit/text-digest.js';
import type { StoredAttempt } from '../effects/store/audit-store.js';
import type { PaneIdentityFacts } from '../effects/tmux/pane-identity.js';
import { countCharacters, normalizeNewlines } from '../policy/input.js';
import { classifyPaneStatus, type PaneStatus } from '../policy/status.js';
import {
  continuationPromptAfterEnter,
  inputRowsAfterTyping,
  landingNeedle,
  MAX_INPUT_ROWS,
  occurrences,
  rowsAtCursor,
  rowsShow,
} from '../policy/submission.js';
import type { DeliveryReads } from '../reads/delivery-reads.js';
import { classifyDelivery } from './attempt-outcome.js';
import { authorizedForeground, runInputAttempt, type ActContext, type ActOutcome, type AttemptCaller } from './attempt.js';
import { recordRejectedInputCall } from './rejected-call.js';
import { checkLineBeforeSubmit, integratedShellAtPrompt, lineOwner } from './input-line.js';
import type { ResolvedTarget, TargetRef } from '../access/target.js';
import { samePane } from '../policy/identity.js';

export const LANDING_WAIT_MS = 2_000;
export const SUBMIT_WAIT_MS = 3_000;
const LANDING_POLL_MS = 50;
const SUBMIT_POLL_MS = 100;
/** A program prints its continuation prompt just after echoing the newline; evidence of
 * submission is looked at once more after this pause before it is believed. */
const SETTLE_MS = 300;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface PaneView {
  rows: string[];
  screen: string[];
  status: PaneStatus;
  statusReason: string;
}

async function viewPane(reads: DeliveryReads, live: PaneIdentityFacts): Promise<PaneView> {
  const { rows, screen } = await reads.view(live, MAX_INPUT_ROWS);
  // Screen evidence only (no output-age rule): "RUNNING" then means the program says so.
  const verdict = classifyPaneStatus({ lines: screen, currentCommand: live.currentCommand, inCopyMode: live.inMode, idleSeconds: Number.NaN });
  return { rows, screen, status: verdict.status, statusReason: verdict.reason };
}

/** cursor: the text sits in the `rows` rows ending at the cursor, `count` times; screen:
 * the cursor is hidden or elsewhere, the screen shows the text `count` times. */
type Landing = { mode: 'cursor'; rows: number; count: number } | { mode: 'screen'; count: number };

const absoluteLine = (l: PaneIdentityFacts) => l.historySize + l.cursorY;

function targetFields(t: ResolvedTarget | null) {
  return {
    session: t?.sessionName ?? null,
    session_id: t?.identity.sessionId ?? null,
    pane_id: t?.identity.paneId ?? null,
    binding: t?.binding?.name ?? null,
  };
}

async function typeAndSubmit(ctx: ActContext, reads: DeliveryReads, at: number, line: { clear: boolean; owner: string }): Promise<ActOutcome<TaskReceipt>> {
  const { target, decision, auditId, services } = ctx;
  if (decision.action !== 'paste_text') throw new AppError('INTERNAL', 'unexpected input decision');
  const paneId = target.identity.paneId;
  const receipt = (kind: TaskReceiptKind, message: string, landed: boolean, enter: boolean, hint: string | null = null): TaskReceipt => ({
    receipt: kind,
    audit_id: auditId,
    ...targetFields(target),
    error_code: null,
    message,
    hint,
    text_length: countCharacters(decision.text),
    text_landed: landed,
    enter_pressed: enter,
    replayed: false,
    at: new Date(at).toISOString(),
  });
  const done = (r: TaskReceipt, auditDecision: ActOutcome<TaskReceipt>['decision'] = 'SENT'): ActOutcome<TaskReceipt> => ({
    decision: auditDecision,
    errorCode: auditDecision === 'SENT' ? null : 'TMUX_UNAVAILABLE',
    value: r,
    receipt: r.receipt,
    // A line cleared first is audited with the receipt.
    receiptJson: JSON.stringify(cleared ? { ...r, cleared_line: true } : r),
  });
  const stillSame = (l: PaneIdentityFacts | null): l is PaneIdentityFacts => l !== null && samePane(l, target.identity);

  const needle = landingNeedle(decision.text);
  if (needle === null) throw new AppError('INTERNAL', 'task text without visible characters');
  // A shell at its prompt whose line the broker can read: the task goes only onto an
  // empty line or this caller's own typing since the prompt (input-line.ts).
  const shell = await integratedShellAtPrompt(ctx);
  if (shell !== null) {
    const refusal = await checkLineBeforeSubmit(ctx, shell, line.clear, line.owner, 'submitting this task');
    if (refusal !== null) {
      const r = { ...receipt('BLOCKED', refusal.refused.message, false, false, refusal.refused.hint ?? null), error_code: refusal.refused.code };
      return { decision: 'FAILED', errorCode: refusal.refused.code, value: r, receipt: r.receipt, receiptJson: JSON.stringify(r) };
    }
  }
  const cleared = line.clear && shell !== null;
  const before = await viewPane(reads, ctx.live);

  const expected = authorizedForeground(ctx.live);
  const pasted = await services.delivery.pasteText(paneId, decision.text, expected);
  if (!pasted.ok) {
    const verdict = classifyDelivery(pasted);
    if (pasted.changed) return { ...verdict, value: receipt('DELIVERY_UNKNOWN', "the pane's foreground program changed between the check and the paste; nothing was typed", false, false) };
    if (verdict.decision === 'FAILED') return { ...verdict, value: receipt('DELIVERY_UNKNOWN', 'tmux refused the paste; nothing was typed', false, false) };
    return done(receipt('DELIVERY_UNKNOWN', 'tmux stopped answering while typing: the text may or may not be in the input line; Enter was not pressed', false, false), 'DELIVERY_UNKNOWN');
  }

  // Landed? The needle must appear at the cursor (or, for programs that hide the cursor,
  // once more on the screen than before typing).
  let landing: Landing | null = null;
  let landedLive = ctx.live;
  let landedView = before;
  const landingDeadline = Date.now() + LANDING_WAIT_MS;
  while (landing === null) {
    const live = await reads.identity(paneId);
    if (!stillSame(live)) {
      return done(receipt('DELIVERY_UNKNOWN', 'the pane was replaced right after typing; Enter was not pressed', false, false));
    }
    const view = await viewPane(reads, live);
    const rows = inputRowsAfterTyping(before.rows, view.rows, needle);
    if (rows !== null) landing = { mode: 'cursor', rows, count: occurrences(rowsAtCursor(view.rows, rows), needle) };
    else {
      const count = occurrences(view.screen, needle);
      if (count > occurrences(before.screen, needle)) landing = { mode: 'screen', count };
    }
    landedLive = live;
    landedView = view;
    if (landing === null) {
      if (Date.now() >= landingDeadline) break;
      await sleep(LANDING_POLL_MS);
    }
  }
  if (landing === null) {
    return done(
      receipt(
        'DELIVERY_UNKNOWN',
        `typed the text but did not see it in the input line within ${LANDING_WAIT_MS / 1000} s, so Enter was NOT pressed: check with terminal_input_context, then press Enter with terminal_send_keys if the text is there`,
        false,
        false,
      ),
    );
  }

  // Enter only into the foreground that was authorized (tmux checks at the key press).
  const pressed = await services.delivery.pressKeys(paneId, ['Enter'], expected);
  if (!pressed.ok) {
    if (pressed.changed) {
      const r = receipt('DELIVERY_UNKNOWN', "the text landed but the pane's foreground program changed before Enter, so Enter was NOT pressed", true, false);
      return { decision: 'DELIVERY_UNKNOWN', errorCode: 'IDENTITY_CHANGED', value: r, receipt: r.receipt, receiptJson: JSON.stringify(r) };
    }
    const enter = pressed.delivered === 'unknown';
    return done(receipt('DELIVERY_UNKNOWN', 'the text landed but tmux did not confirm the Enter key; it is not pressed again', true, enter), 'DELIVERY_UNKNOWN');
  }

  // Taken? Positive evidence only; the text is never typed again.
  const evidenceOf = (live: PaneIdentityFacts, view: PaneView): string | null => {
    if (live.currentCommand !== landedLive.currentCommand) {
      return `the foreground command changed from ${JSON.stringify(landedLive.currentCommand)} to ${JSON.stringify(live.currentCommand)}`;
    }
    if (landing.mode === 'cursor') {
      const rows = rowsAtCursor(view.rows, landing.rows);
      if (!rowsShow(rows, needle) || occurrences(rows, needle) < landing.count) return 'the typed text left the input line';
      if (absoluteLine(live) > absoluteLine(landedLive)) return 'the cursor moved on to a new line';
    } else if (occurrences(view.screen, needle) < landing.count) {
      return 'the typed text left the input box';
    }
    if (view.status === 'RUNNING' && landedView.status !== 'RUNNING') return `the status changed to RUNNING (${view.statusReason})`;
    return null;
  };
  const needsEnter = (view: PaneView): TaskReceipt | null => {
    const prompt = landing.mode === 'cursor' ? continuationPromptAfterEnter(before.rows, view.rows, needle) : null;
    if (prompt === null) return null;
    return receipt(
      'NEEDS_ENTER',
      `typed the text and pressed Enter once; the program waits at its continuation prompt ${JSON.stringify(prompt)}, so the text has NOT run yet`,
      true,
      true,
      'press Enter once more with terminal_send_keys {"keys":["Enter"]} (a blank line ends a Python block), or finish the open quote/heredoc',
    );
  };
  const submitDeadline = Date.now() + SUBMIT_WAIT_MS;
  for (;;) {
    await sleep(SUBMIT_POLL_MS);
    const live = await reads.identity(paneId);
    if (!stillSame(live)) {
      return done(receipt('DELIVERY_UNKNOWN', 'pressed Enter once; then the pane ended or was replaced, so it cannot be told whether the task was taken', true, true));
    }
    const view = await viewPane(reads, live);
    const waiting = needsEnter(view);
    if (waiting !== null) return done(waiting);
    const evidence = evidenceOf(live, view);
    if (evidence !== null) {
      await sleep(SETTLE_MS);
      const settledLive = await reads.identity(paneId);
      if (stillSame(settledLive)) {
        const settled = needsEnter(await viewPane(reads, settledLive));
        if (settled !== null) return done(settled);
      }
      return done(receipt('SUBMIT_CONFIRMED', `typed the text, saw it in the input line, pressed Enter once; ${evidence}`, true, true));
    }
    if (Date.now() >= submitDeadline) {
      return done(
        receipt(
          'DELIVERY_UNKNOWN',
          `pressed Enter once; the pane showed no sign within ${SUBMIT_WAIT_MS / 1000} s that the task was taken (it is never re-sent): check with terminal_status or terminal_tail`,
          true,
          true,
        ),
      );
    }
  }
}

/** The stored receipt of an earlier attempt with the same key, marked as a replay. */
function replayReceipt(attempt: StoredAttempt): TaskReceipt {
  if (attempt.receiptJson !== null) {
    const parsed = taskReceiptSchema.safeParse(JSON.parse(attempt.receiptJson));
    if (parsed.success) return { ...parsed.data, replayed: true };
  }
  const unknown = attempt.decision === 'PENDING' || attempt.decision === 'DELIVERY_UNKNOWN' || attempt.decision === 'SENT';
  return {
    receipt: unknown ? 'DELIVERY_UNKNOWN' : 'BLOCKED',
    audit_id: attempt.id,
    session: attempt.sessionName,
    session_id: attempt.sessionId,
    pane_id: attempt.paneId,
    binding: attempt.binding,
    error_code: attempt.errorCode,
    message:
      attempt.decision === 'PENDING'
        ? 'an earlier call with this idempotency key is still in flight; nothing was sent again'
        : `an earlier call with this idempotency key ended ${attempt.decision}; nothing was sent again`,
    hint: null,
    text_length: attempt.textLength ?? 0,
    text_landed: false,
    enter_pressed: false,
    replayed: true,
    at: new Date(attempt.at).toISOString(),
  };
}

export async function sendTask(
  caller: AttemptCaller,
  args: { target: TargetRef; text: string; idempotencyKey?: string; dryRun: boolean; clearLine?: boolean },
): Promise<TaskReceipt> {
  // Enter is pressed by the tool, once: trailing newlines would submit early.
  const text = args.text.replace(/(?:\r?\n)+$/, '');
  if (landingNeedle(normalizeNewlines(text).text) === null) {
    // Refused before any gate, like a schema failure, and audited the same way.
    recordRejectedInputCall(caller, 'input.sendTask', args.target);
    throw new AppError('INVALID_ARGUMENT', 'the task text has no visible characters');
  }
  const services = caller.deps.input;
  const idempotency =
    args.idempotencyKey === undefined
      ? undefined
      : {
          scope: caller.role,
          key: args.idempotencyKey,
          fingerprint: hmacText(services.auditKey(), JSON.stringify([args.target.session ?? null, args.target.binding ?? null, text, ...(args.target.pane !== undefined ? [args.target.pane] : [])])),
        };
  const result = await runInputAttempt<TaskReceipt>(
    caller,
    { tool: 'terminal_send_task', target: args.target, request: { kind: 'text', text, submit: true }, dryRun: args.dryRun, ...(idempotency ? { idempotency } : {}) },
    (ctx) => typeAndSubmit(ctx, ctx.reads, Date.now(), { clear: args.clearLine === true, owner: lineOwner(caller) }),
  );
  switch (result.kind) {
    case 'queued':
      // Not queueable: review mode refuses a task instead (attempt.ts needsReview).
      throw new AppError('INTERNAL', 'unexpected review queueing of a task');
    case 'replayed':
      if (!result.fingerprintMatches) {
        throw new AppError('INVALID_ARGUMENT', 'this idempotency_key was used in the last 24 hours for a different text or target; use a new key');
      }
      return replayReceipt(result.attempt);
    case 'blocked':
      return {
        receipt: 'BLOCKED',
        audit_id: result.auditId,
        ...targetFields(result.target),
        session: result.target?.sessionName ?? args.target.session ?? null,
        binding: args.target.binding ?? null,
        error_code: result.error.code,
        message: result.error.message,
        hint: result.error.hint || ERROR_SPECS[result.error.code].hint,
        text_length: countCharacters(normalizeNewlines(text).text),
        text_landed: false,
        enter_pressed: false,
        replayed: false,
        at: new Date(result.at).toISOString(),
      };
    case 'dry_run':
      return {
        receipt: 'DRY_RUN',
        audit_id: result.auditId,
        ...targetFields(result.target),
        error_code: null,
        message: 'every gate passed; nothing was typed (dry run)',
        hint: null,
        text_length: countCharacters(normalizeNewlines(text).text),
        text_landed: false,
        enter_pressed: false,
        replayed: false,
        at: new Date(result.at).toISOString(),
      };
    case 'acted':
      // A refusal after the audit row (text on the shell's input line) is a receipt too.
      if (result.outcome.decision === 'FAILED' && result.outcome.value.receipt !== 'BLOCKED') throw new AppError('TMUX_UNAVAILABLE', 'tmux refused the input; nothing was typed');
      return result.outcome.value;
  }
}
