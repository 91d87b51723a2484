/**
 * THE classifier of how an input attempt ends (attempt.ts writes what it says, in one
 * place). Two questions, two functions:
 *
 * - an error stopped the attempt: in which phase, and with which code?
 *   - the audit log cannot be written (AUDIT_UNAVAILABLE) before the attempt's row
 *     exists: nothing is recorded (there is no log to record in) and nothing was sent;
 *   - thrown while delivering (the caller's act): bytes may or may not have reached the
 *     pane: DELIVERY_UNKNOWN, and the error goes on to the caller;
 *   - a gate said no (REFUSALS), before or after the audit row and the lock: BLOCKED,
 *     answered as a refusal;
 *   - anything else before delivery (tmux or the broker failing): FAILED, and the error
 *     goes on to the caller.
 * - tmux answered the delivery (effects/tmux/deliver.ts DeliveryOutcome): SENT when it
 *   delivered; FAILED when tmux refused before pasting (nothing written); DELIVERY_UNKNOWN
 *   when it stopped answering mid-command. The code says why: the foreground changed under
 *   the send (tmux's last-instant check, a refusal: IDENTITY_CHANGED), else
 *   TMUX_UNAVAILABLE.
 */
import { AppError, readAppErrorData, type AuditDecision, type ErrorCode } from '@terminal-mcp/contract';
import type { DeliveryOutcome } from '../effects/tmux/deliver.js';

/** Codes that mean "a gate said no": the attempt is BLOCKED. */
export const REFUSALS: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'INPUT_DISABLED',
  'INPUT_NOT_ALLOWED',
  'UNAUTHENTICATED',
  'COMMAND_GUARDED',
  'FOREGROUND_NOT_ALLOWED',
  'NOT_A_CREDENTIAL_PROMPT',
  'PANE_IN_COPY_MODE',
  'TEXT_TOO_LONG',
  'TEXT_REJECTED',
  'KEY_NOT_ALLOWED',
  'CONFIRMATION_REQUIRED',
  'IDENTITY_CHANGED',
  'INPUT_LINE_NOT_EMPTY',
  'LEASE_BUSY',
  'BINDING_NOT_FOUND',
  'SESSION_NOT_FOUND',
  'INVALID_ARGUMENT',
]);

/** Where the attempt was when it stopped: checking before its audit row was written
 * (resolve, gates), checking after it (the lock, the re-check under it), or delivering
 * (inside the caller's act). */
export type AttemptPhase = 'before-audit' | 'audited' | 'deliver';

export type FinalDecision = Extract<AuditDecision, 'SENT' | 'BLOCKED' | 'FAILED' | 'DELIVERY_UNKNOWN'>;

export interface ClassifiedError {
  /** What the audit row says; null: nothing can be recorded (the audit log is down). */
  decision: Extract<FinalDecision, 'BLOCKED' | 'FAILED' | 'DELIVERY_UNKNOWN'> | null;
  error: AppError;
  /** The original error goes on to the caller (a failure); false: answered as a refusal. */
  rethrow: boolean;
}

/** Our error code of anything thrown; an unknown error is INTERNAL. */
export function toAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  const data = readAppErrorData(err);
  if (data) return new AppError(data.code, err instanceof Error ? err.message : undefined, data.hint);
  return new AppError('INTERNAL', 'the input attempt failed unexpectedly');
}

export function classifyAttemptError(err: unknown, phase: AttemptPhase): ClassifiedError {
  const error = toAppError(err);
  if (phase === 'before-audit' && error.code === 'AUDIT_UNAVAILABLE') return { decision: null, error, rethrow: true };
  if (phase === 'deliver') return { decision: 'DELIVERY_UNKNOWN', error, rethrow: true };
  if (REFUSALS.has(error.code)) return { decision: 'BLOCKED', error, rethrow: false };
  return { decision: 'FAILED', error, rethrow: true };
}

export function classifyDelivery(outcome: DeliveryOutcome): { decision: Extract<FinalDecision, 'SENT' | 'FAILED' | 'DELIVERY_UNKNOWN'>; errorCode: ErrorCode | null } {
  if (outcome.ok) return { decision: 'SENT', errorCode: null };
  return { decision: outcome.delivered === 'no' ? 'FAILED' : 'DELIVERY_UNKNOWN', errorCode: outcome.changed ? 'IDENTITY_CHANGED' : 'TMUX_UNAVAILABLE' };
}
