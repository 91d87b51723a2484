/**
 * Checking an operator's name and password, for the dashboard login and the observer's
 * OAuth login page alike. Security assumptions:
 *  - an unknown name and a wrong password take the same time (a real argon2 verify against
 *    a dummy hash) and get the same answer;
 *  - throttling is checked before any hash and keyed on the source IP and on the source
 *    with the ATTEMPTED name, existing or not, so it reveals nothing about which names
 *    exist and a wrong password from one source never holds back another;
 *  - the source IP is what the calling server derived from its socket or trusted proxy;
 *    the broker only keys on it and logs it.
 * Passwords never reach the log; attempted names are logged only when they are real
 * accounts (people type passwords into the name field).
 */
import { USERNAME_PATTERN } from '@terminal-mcp/contract';
import type { ThrottleKey, UserRecord } from '../effects/store/webauth-store.js';
import type { WebauthEnv } from './env.js';
import { verifyPassword } from './passwords.js';
import { BAD_CREDENTIALS, rateLimited, type AuthRefusal } from './refusal.js';
import { createSession } from './sessions.js';
import { THROTTLE_FORGET_AFTER_MS, afterAccountFailure, afterIpFailure, blockedUntil, retryAfterSeconds } from '../policy/login-throttle.js';

export interface LoginAttempt {
  username: string;
  password: string;
  sourceIp: string;
}

export const LOGIN_CHANNELS = ['dashboard', 'oauth'] as const;
export type LoginChannel = (typeof LOGIN_CHANNELS)[number];

/** Throttling is kept apart per channel: the OAuth consent page faces the internet
 * through a tunnel (where every request may arrive from 127.0.0.1), so failures there
 * must not lock the operator out of the loopback dashboard, nor the other way round.
 * The account lock is kept per SOURCE and account: keyed on the name alone, anyone able
 * to reach the login page (another operator on a few loopback addresses) could lock the
 * owner out in seconds with wrong passwords. Failures from one source now hold back only
 * that source. */
export function throttleKeys(username: string, sourceIp: string, channel: LoginChannel): ThrottleKey[] {
  return [
    { scope: 'ip', key: `${channel}:${sourceIp}` },
    { scope: 'account', key: `${accountThrottlePrefix(channel, username)}${sourceIp}` },
  ];
}

/** Every account-scope throttle key of `username` on `channel` starts with this (user
 * names cannot contain ':'), whatever the source. */
export function accountThrottlePrefix(channel: LoginChannel, username: string): string {
  return `${channel}:${username}:`;
}

/**
 * Records the attempt as a failure up front, in one transaction with the check, unless
 * throttling holds it back. Returns the refusal when held back, else null. The caller
 * clears the record (`forgiveAttempt`) when the password proves right.
 */
export function reserveAttempt(env: WebauthEnv, keys: ThrottleKey[]): AuthRefusal | null {
  const now = env.now();
  const until = env.store.updateThrottle(keys, (states) => {
    const blocked = blockedUntil(states, now);
    if (blocked !== null) return { result: blocked };
    return {
      result: null,
      next: keys.map((k, i) => (k.scope === 'ip' ? afterIpFailure(states[i], now) : afterAccountFailure(states[i], now))),
    };
  });
  if (until === null) {
    env.store.pruneThrottle(now - THROTTLE_FORGET_AFTER_MS, now);
    return null;
  }
  return rateLimited(retryAfterSeconds(until, now));
}

export function forgiveAttempt(env: WebauthEnv, keys: ThrottleKey[]): void {
  env.store.clearThrottle(keys);
}

export async function verifyCredentials(
  env: WebauthEnv,
  attempt: LoginAttempt,
  channel: LoginChannel,
): Promise<{ ok: true; user: UserRecord } | AuthRefusal> {
  const keys = throttleKeys(attempt.username, attempt.sourceIp, channel);
  const held = reserveAttempt(env, keys);
  if (held) {
    env.log.warn({ event: 'webauth.login_throttled', channel, sourceIp: attempt.sourceIp, retryAfterSeconds: held.code === 'RATE_LIMITED' ? held.retryAfterSeconds : undefined }, 'login attempt held back by throttling');
    return held;
  }
  const user = USERNAME_PATTERN.test(attempt.username) ? env.store.findUserByName(attempt.username) : undefined;
  const matches = await verifyPassword(user?.passwordHash ?? (await env.dummyHash()), attempt.password);
  if (!user || !matches) {
    env.log.warn(
      { event: 'webauth.login_failed', channel, sourceIp: attempt.sourceIp, knownUser: Boolean(user), ...(user ? { userId: user.id, username: user.username } : {}) },
      'login failed',
    );
    return BAD_CREDENTIALS;
  }
  forgiveAttempt(env, keys);
  env.log.info({ event: 'webauth.login_succeeded', channel, sourceIp: attempt.sourceIp, userId: user.id, username: user.username }, 'login succeeded');
  return { ok: true, user };
}

export interface LoginSuccess {
  ok: true;
  token: string;
  expiresAt: number;
  mustChangePassword: boolean;
  user: UserRecord;
}

/** Checks the credentials and opens a new 12-hour session. */
export async function login(env: WebauthEnv, attempt: LoginAttempt): Promise<LoginSuccess | AuthRefusal> {
  const checked = await verifyCredentials(env, attempt, 'dashboard');
  if (!checked.ok) return checked;
  const { token, session } = createSession(env, checked.user.id);
  return { ok: true, token, expiresAt: session.expiresAt, mustChangePassword: checked.user.mustChangePassword, user: checked.user };
}
