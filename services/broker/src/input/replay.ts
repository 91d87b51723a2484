/**
 * Idempotency keys of terminal_send_text and terminal_run (terminal_send_task's own are in
 * task.ts; all three claim the key through the input attempt, attempt.ts): a retry with
 * the same key within 24 hours types nothing and answers what the first attempt came to.
 * A key whose first attempt typed nothing (refused, or tmux refused) is free again.
 */
import { AppError } from '@terminal-mcp/contract';
import { hmacText } from '../audit/text-digest.js';
import type { StoredAttempt } from '../effects/store/audit-store.js';
import type { AttemptCaller, AttemptSpec } from './attempt.js';

/** The key's claim: scoped to the caller's role (as terminal_send_task's), with an HMAC of
 * what the call asks for, so a key reused for another text or target is told apart. */
export function idempotencyOf(caller: AttemptCaller, key: string | undefined, asked: readonly unknown[]): AttemptSpec['idempotency'] {
  if (key === undefined) return undefined;
  return { scope: caller.role, key, fingerprint: hmacText(caller.deps.input.auditKey(), JSON.stringify(asked)) };
}

/** The earlier attempt of a replay, when it typed (SENT): its caller answers from it. A key
 * used for something else is INVALID_ARGUMENT; an earlier attempt whose outcome is not
 * known (still in flight, or DELIVERY_UNKNOWN) answers DELIVERY_UNKNOWN again. */
export function sentEarlier(replay: { attempt: StoredAttempt; fingerprintMatches: boolean }): StoredAttempt {
  if (!replay.fingerprintMatches) {
    throw new AppError('INVALID_ARGUMENT', 'this idempotency_key was used in the last 24 hours for a different text or target; use a new key');
  }
  const earlier = replay.attempt;
  if (earlier.decision === 'SENT') return earlier;
  const state = earlier.decision === 'PENDING' ? 'is still in flight' : `ended ${earlier.decision}`;
  throw new AppError(
    'DELIVERY_UNKNOWN',
    `the earlier call with this idempotency_key (audit id ${earlier.id}) ${state}: it may or may not have reached the pane, and nothing was typed again now`,
  );
}
