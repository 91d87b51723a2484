/**
 * The operator's dashboard grants as the input path sees them: the effective grant of a
 * resolved target (pinned to exactly that session's identity, unexpired, never for a
 * sensitive name; see policy/grants.ts), and the read check that follows from it. Read
 * from grants.db at the moment of asking, like every other fact.
 */
import { AppError } from '@terminal-mcp/contract';
import type { BrokerDeps } from '../deps.js';
import { grantLookupOf } from '../grants/grant-lookup.js';
import { effectiveGrant, type EffectiveGrant } from '../policy/grants.js';
import { canRead } from '../reads/read-gate.js';
import type { PaneIdentity } from './target.js';

export function grantOfTarget(deps: Pick<BrokerDeps, 'stores'>, sessionName: string, identity: PaneIdentity): EffectiveGrant | null {
  const stored = grantLookupOf(deps)(sessionName);
  return effectiveGrant(sessionName, stored, { serverPid: identity.serverPid, sessionId: identity.sessionId, created: identity.sessionCreated }, Date.now());
}

/** Read access to a resolved target: the whitelist, or a grant pinned to this session. */
export function canReadTarget(deps: Pick<BrokerDeps, 'config' | 'stores'>, sessionName: string, identity: PaneIdentity): boolean {
  return canRead(deps.config, sessionName, grantOfTarget(deps, sessionName, identity));
}

export function assertCanReadTarget(deps: Pick<BrokerDeps, 'config' | 'stores'>, sessionName: string, identity: PaneIdentity): void {
  if (!deps.config.permissions.terminal_read) throw new AppError('READ_DISABLED', 'reading terminals is turned off');
  if (!canReadTarget(deps, sessionName, identity)) throw new AppError('SESSION_NOT_ALLOWED', 'access to this session is denied');
}
