/**
 * An operator changes their own password from a signed-in session. Proving the current
 * password is throttled like a login (a stolen cookie must not become a password oracle).
 * On success every session of the user ends, a NEW session is returned, the
 * must-change flag clears, and the first-start secret file goes once it no longer holds
 * a valid password.
 */
import type { WebauthEnv } from './env.js';
import { forgiveAttempt, reserveAttempt, throttleKeys } from './login.js';
import { hashPassword, passwordRuleViolation, verifyPassword } from './passwords.js';
import { refuse, type AuthRefusal } from './refusal.js';
import { newSession, validateSessionToken } from './sessions.js';
import { BOOTSTRAP_USERNAME } from './bootstrap.js';
import type { LoginSuccess } from './login.js';

export interface PasswordChange {
  token: string;
  currentPassword: string;
  newPassword: string;
  sourceIp: string;
}

export async function changePassword(env: WebauthEnv, change: PasswordChange): Promise<LoginSuccess | AuthRefusal> {
  const valid = validateSessionToken(env, change.token);
  if (!valid) return refuse('UNAUTHENTICATED', 'the session is invalid or has expired: sign in again');
  const { user, session } = valid;

  const violation = passwordRuleViolation(change.newPassword, user.username);
  if (violation) return refuse('INVALID_ARGUMENT', violation);

  const keys = throttleKeys(user.username, change.sourceIp, 'dashboard');
  const held = reserveAttempt(env, keys);
  if (held) return held;
  if (!(await verifyPassword(user.passwordHash, change.currentPassword))) {
    env.log.warn({ event: 'webauth.password_change_refused', sourceIp: change.sourceIp, userId: user.id, username: user.username }, 'current password was wrong');
    // FORBIDDEN, not UNAUTHENTICATED: the session is fine, so the dashboard should show a
    // form error rather than send the operator back to the login page.
    return refuse('FORBIDDEN', 'the current password is wrong');
  }
  forgiveAttempt(env, keys);
  if (change.newPassword === change.currentPassword) return refuse('INVALID_ARGUMENT', 'the new password must differ from the current one');

  const passwordHash = await hashPassword(change.newPassword);
  const now = env.now();
  const created = newSession(user.id, now);
  const result = env.store.replacePassword({
    userId: user.id,
    passwordHash,
    mustChangePassword: false,
    now,
    requireSessionId: session.id,
    newSession: created.session,
  });
  if (!result.applied) return refuse('UNAUTHENTICATED', 'the session ended while the password was being changed: sign in again');
  const removedBootstrapFile = user.username === BOOTSTRAP_USERNAME && env.secretFile.remove();
  env.log.info(
    { event: 'webauth.password_changed', by: 'self', sourceIp: change.sourceIp, userId: user.id, username: user.username, endedSessions: result.endedSessions, removedBootstrapFile },
    'password changed',
  );
  return { ok: true, token: created.token, expiresAt: created.session.expiresAt, mustChangePassword: false, user: { ...user, passwordHash, mustChangePassword: false, passwordChangedAt: now } };
}
