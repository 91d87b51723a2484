/** Test kit (not built into dist): a signed-in operator's session token, made the way
 * login makes it, so tests can call web.sock's operator procedures as that user. */
import type { BrokerDeps } from '../rpc/deps.js';
import { createSession, newSession } from './sessions.js';

export function operatorToken(deps: Pick<BrokerDeps, 'webauth'>, username: string, opts: { expired?: boolean } = {}): string {
  const env = deps.webauth;
  const user = env.store.findUserByName(username) ?? env.store.createUser({ username, passwordHash: 'unused', mustChangePassword: false, now: Date.now() })!;
  if (!opts.expired) return createSession(env, user.id).token;
  const stale = newSession(user.id, Date.now() - 13 * 3600_000);
  env.store.insertSession(stale.session);
  return stale.token;
}
