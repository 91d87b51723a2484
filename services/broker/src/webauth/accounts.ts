/** Account administration for the operator's CLI (`terminal-mcp-webauth`), which runs as
 * the broker's own user with direct access to webauth.db: create a user, set a password.
 * Setting a password ends all of that user's sessions and lifts the per-account lock. */
import { USERNAME_PATTERN } from '@terminal-mcp/contract';
import type { UserRecord } from '../effects/store/webauth-store.js';
import { BOOTSTRAP_USERNAME } from './bootstrap.js';
import type { WebauthEnv } from './env.js';
import { LOGIN_CHANNELS, accountThrottlePrefix } from './login.js';
import { hashPassword, passwordRuleViolation } from './passwords.js';
import { refuse, type AuthRefusal } from './refusal.js';

export function usernameViolation(username: string): string | null {
  return USERNAME_PATTERN.test(username) ? null : 'the user name must be 1-32 characters of a-z, 0-9, ".", "_" or "-"';
}

export async function createAccount(env: WebauthEnv, username: string, password: string): Promise<{ ok: true; user: UserRecord } | AuthRefusal> {
  const badName = usernameViolation(username);
  if (badName) return refuse('INVALID_ARGUMENT', badName);
  if (env.store.findUserByName(username)) return refuse('INVALID_ARGUMENT', `a user named ${username} already exists`);
  const violation = passwordRuleViolation(password, username);
  if (violation) return refuse('INVALID_ARGUMENT', violation);
  const user = env.store.createUser({ username, passwordHash: await hashPassword(password), mustChangePassword: false, now: env.now() });
  if (!user) return refuse('INVALID_ARGUMENT', `a user named ${username} already exists`);
  env.log.info({ event: 'webauth.user_created', by: 'cli', userId: user.id, username }, 'operator account created');
  return { ok: true, user };
}

export async function setAccountPassword(
  env: WebauthEnv,
  username: string,
  password: string,
): Promise<{ ok: true; endedSessions: number } | AuthRefusal> {
  const user = env.store.findUserByName(username);
  if (!user) return refuse('NOT_FOUND', `no user named ${username}`);
  const violation = passwordRuleViolation(password, username);
  if (violation) return refuse('INVALID_ARGUMENT', violation);
  const passwordHash = await hashPassword(password);
  const result = env.store.replacePassword({ userId: user.id, passwordHash, mustChangePassword: false, now: env.now() });
  if (!result.applied) return refuse('NOT_FOUND', `no user named ${username}`);
  env.store.clearAccountThrottle(LOGIN_CHANNELS.map((channel) => accountThrottlePrefix(channel, username)));
  const removedBootstrapFile = username === BOOTSTRAP_USERNAME && env.secretFile.remove();
  env.log.info({ event: 'webauth.password_changed', by: 'cli', userId: user.id, username, endedSessions: result.endedSessions, removedBootstrapFile }, 'password set');
  return { ok: true, endedSessions: result.endedSessions };
}
