/**
 * When did the operator behind a dashboard session last prove their password? For the
 * secret entry (input/secret-entry.ts), which asks for a fresh proof: the sign-in itself
 * when it is recent, else the password typed again now — checked and throttled exactly
 * like the current password of a password change (a stolen cookie must not become a
 * password oracle). The password is never logged or stored.
 */
import type { WebauthEnv } from './env.js';
import { forgiveAttempt, reserveAttempt, throttleKeys } from './login.js';
import { verifyPassword } from './passwords.js';
import { refusalError } from './refusal.js';
import { validateSessionToken } from './sessions.js';

/** The time of the last proof, or null when there is none to offer (a wrong password,
 * or none given after an old sign-in). Throws RATE_LIMITED while the source is held back. */
export async function lastReauthentication(env: WebauthEnv, token: string, password: string | undefined, sourceIp: string): Promise<number | null> {
  const valid = validateSessionToken(env, token);
  if (!valid) return null;
  if (password === undefined) return valid.session.createdAt;
  const keys = throttleKeys(valid.user.username, sourceIp, 'dashboard');
  const held = reserveAttempt(env, keys);
  if (held) throw refusalError(held);
  if (!(await verifyPassword(valid.user.passwordHash, password))) {
    env.log.warn({ event: 'webauth.reauth_failed', sourceIp, userId: valid.user.id, username: valid.user.username }, 'password typed again for the secret entry was wrong');
    return null;
  }
  forgiveAttempt(env, keys);
  return env.now();
}
