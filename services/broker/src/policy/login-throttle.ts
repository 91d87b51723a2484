/**
 * Login throttling policy, pure: the next state of a throttle row from its current state
 * and the clock. Two scopes, both checked before any password is hashed:
 *  - per source IP: every failure doubles the wait (1 s, 2 s, 4 s, ... capped at 15 min);
 *    an hour without failures starts the count over. A steady guesser at the cap never
 *    waits long enough to be forgiven.
 *  - per source IP and attempted account name (existing or not, so the limit cannot
 *    reveal which names exist): 10 failures within 15 min lock that name for 15 min from
 *    that source. Never for the name alone: then a wrong password from anyone would lock
 *    the owner out (the webauth caller builds the keys, webauth/login.ts).
 * An attempt is recorded as a failure BEFORE the password is checked and the record is
 * cleared on success, so concurrent guesses cannot slip past a check together.
 */

/** One throttle row as the rule reads and writes it (stored by effects/store/webauth-store.ts). */
export interface ThrottleState {
  failures: number;
  windowStartedAt: number;
  lastFailureAt: number;
  nextAllowedAt: number;
}

export const THROTTLE_POLICY = {
  ipBaseDelayMs: 1_000,
  ipMaxDelayMs: 15 * 60_000,
  ipForgetAfterMs: 60 * 60_000,
  accountMaxFailures: 10,
  accountWindowMs: 15 * 60_000,
  accountLockMs: 15 * 60_000,
} as const;

/** Rows whose last failure is older than this and that hold nothing back are equivalent
 * to no row in either scope, and may be deleted. */
export const THROTTLE_FORGET_AFTER_MS = Math.max(THROTTLE_POLICY.ipForgetAfterMs, THROTTLE_POLICY.accountWindowMs);

export function ipDelayMs(consecutiveFailures: number): number {
  const exponent = Math.min(Math.max(consecutiveFailures - 1, 0), 30);
  return Math.min(THROTTLE_POLICY.ipBaseDelayMs * 2 ** exponent, THROTTLE_POLICY.ipMaxDelayMs);
}

export function afterIpFailure(state: ThrottleState | undefined, now: number): ThrottleState {
  const forgotten = !state || now - state.lastFailureAt >= THROTTLE_POLICY.ipForgetAfterMs;
  const failures = forgotten ? 1 : state.failures + 1;
  return {
    failures,
    windowStartedAt: forgotten ? now : state.windowStartedAt,
    lastFailureAt: now,
    nextAllowedAt: now + ipDelayMs(failures),
  };
}

export function afterAccountFailure(state: ThrottleState | undefined, now: number): ThrottleState {
  const newWindow = !state || now - state.windowStartedAt >= THROTTLE_POLICY.accountWindowMs;
  const failures = newWindow ? 1 : state.failures + 1;
  const windowStartedAt = newWindow ? now : state.windowStartedAt;
  if (failures >= THROTTLE_POLICY.accountMaxFailures) {
    const lockedUntil = now + THROTTLE_POLICY.accountLockMs;
    // After the lock a fresh window begins.
    return { failures: 0, windowStartedAt: lockedUntil, lastFailureAt: now, nextAllowedAt: lockedUntil };
  }
  return { failures, windowStartedAt, lastFailureAt: now, nextAllowedAt: state?.nextAllowedAt ?? 0 };
}

/** The latest "not before" among the states, or null when none holds the attempt back. */
export function blockedUntil(states: readonly (ThrottleState | undefined)[], now: number): number | null {
  const until = Math.max(0, ...states.map((s) => s?.nextAllowedAt ?? 0));
  return until > now ? until : null;
}

/** Whole seconds to wait, at least 1. */
export function retryAfterSeconds(until: number, now: number): number {
  return Math.max(1, Math.ceil((until - now) / 1000));
}
