// Guards the throttling policy: per-IP waits double from 1 s to a 15-minute cap, and 10 failures in 15 minutes lock a name for 15 minutes.
import { describe, expect, it } from 'vitest';
import { afterAccountFailure, afterIpFailure, blockedUntil, ipDelayMs, retryAfterSeconds } from './login-throttle.js';
import type { ThrottleState } from './login-throttle.js';

const MIN = 60_000;

describe('per-IP backoff', () => {
  it.each([
    [1, 1_000],
    [2, 2_000],
    [3, 4_000],
    [10, 512_000],
    [11, 900_000],
    [50, 900_000],
  ])('after %i consecutive failures waits %i ms', (n, ms) => expect(ipDelayMs(n)).toBe(ms));

  it('counts consecutive failures and forgets them after an hour without one', () => {
    let s: ThrottleState | undefined;
    let t = 0;
    for (let i = 0; i < 3; i++) {
      s = afterIpFailure(s, t);
      t = s.nextAllowedAt;
    }
    expect(s!.failures).toBe(3);
    expect(afterIpFailure(s, s!.lastFailureAt + 59 * MIN).failures).toBe(4);
    expect(afterIpFailure(s, s!.lastFailureAt + 60 * MIN)).toMatchObject({ failures: 1 });
  });
});

describe('per-account lock', () => {
  it('locks for 15 minutes on the 10th failure within 15 minutes, then starts a fresh window', () => {
    let s: ThrottleState | undefined;
    for (let i = 0; i < 9; i++) s = afterAccountFailure(s, i * MIN);
    expect(blockedUntil([s], 9 * MIN)).toBeNull();
    s = afterAccountFailure(s, 9 * MIN);
    expect(blockedUntil([s], 9 * MIN)).toBe(24 * MIN);
    expect(retryAfterSeconds(24 * MIN, 9 * MIN)).toBe(900);
    const after = afterAccountFailure(s, 24 * MIN);
    expect(after.failures).toBe(1);
    expect(blockedUntil([after], 24 * MIN)).toBeNull();
  });

  it('does not lock when failures are spread beyond the window', () => {
    let s: ThrottleState | undefined;
    for (let i = 0; i < 30; i++) s = afterAccountFailure(s, i * 2 * MIN);
    expect(blockedUntil([s], 60 * MIN)).toBeNull();
  });
});

describe('retryAfterSeconds', () => {
  it('rounds up and is at least 1', () => {
    expect(retryAfterSeconds(1_001, 0)).toBe(2);
    expect(retryAfterSeconds(1, 0)).toBe(1);
  });
});
