/** The read gate: turns the pure access decision into an error that says only that
 * access is denied — never anything about the session's content. */
import { AppError } from '@terminal-mcp/contract';
import type { BrokerConfig } from '../config/schema.js';
import type { SessionFacts, TmuxAdapter } from '../effects/tmux/types.js';
import { decideReadAccess } from '../policy/access.js';
import { effectiveGrant, type EffectiveGrant, type GrantRecord } from '../policy/grants.js';
import { findSessionByName } from './resolve-session.js';

export function readPolicy(config: BrokerConfig) {
  return { terminalRead: config.permissions.terminal_read, allowedPatterns: config.allowed_session_patterns };
}

/** `grant`: the session's effective grant (see `readGrantOf`); without it only the config
 * whitelist admits. Content reads go through `resolveReadableSession`, which finds it. */
export function canRead(config: BrokerConfig, name: string, grant?: EffectiveGrant | null): boolean {
  return decideReadAccess(readPolicy(config), name, grant).allowed;
}

export function assertCanRead(config: BrokerConfig, name: string, grant?: EffectiveGrant | null): void {
  const decision = decideReadAccess(readPolicy(config), name, grant);
  if (decision.allowed) return;
  if (decision.reason === 'READ_DISABLED') throw new AppError('READ_DISABLED', 'reading terminals is turned off');
  throw new AppError('SESSION_NOT_ALLOWED', 'access to this session is denied');
}

/** Where the gate finds the operator's dashboard grants: the stored grant under a name,
 * in whatever state (grants/grant-lookup.ts `grantLookupOf` reads grants.db). */
export type GrantLookup = (sessionName: string) => GrantRecord | undefined;

export interface ReadGateDeps {
  config: BrokerConfig;
  tmux: TmuxAdapter;
  /** Absent: no grant admits anything (fail closed), only the whitelist does. */
  grants?: GrantLookup | undefined;
  now?: (() => number) | undefined;
}

/** The grant that applies to this live session now: pinned to its identity, unexpired,
 * never for a sensitive name. */
export function readGrantOf(deps: Pick<ReadGateDeps, 'grants' | 'now'>, s: SessionFacts): EffectiveGrant | null {
  return effectiveGrant(s.name, deps.grants?.(s.name), s, (deps.now ?? Date.now)());
}

/**
 * THE gate for reading a session's content (tail, capture, status, batch inspect, live
 * output, wait): the session tmux has under exactly `name`, if the whitelist or a grant
 * pinned to that very session admits it. Facts are re-read from tmux now (the adapter's
 * `findSession`), unless the caller passes a listing it just took.
 *
 * A name the whitelist does not admit is answered SESSION_NOT_ALLOWED with the same
 * message whether the session is missing, exists without a grant, or has a stale or
 * expired grant. Without a stored grant under the name nothing can admit it, so it is
 * refused before tmux is asked anything: the work done (one grants.db lookup) is then the
 * same whether or not the session exists. With a stored grant, the session under the name
 * is looked up and the grant must be pinned to it. A whitelisted name that is missing is
 * SESSION_NOT_FOUND, as before grants existed.
 */
export async function resolveReadableSession(deps: ReadGateDeps, name: string, sessions?: readonly SessionFacts[]): Promise<SessionFacts> {
  const byWhitelist = decideReadAccess(readPolicy(deps.config), name);
  // terminal_read off refuses before tmux is asked anything.
  if (byWhitelist.reason === 'READ_DISABLED') assertCanRead(deps.config, name);
  if (byWhitelist.allowed) {
    if (sessions) return findSessionByName(sessions, name);
    const live = await deps.tmux.findSession(name);
    if (live === null) throw new AppError('SESSION_NOT_FOUND', 'no session has exactly that name');
    return live;
  }
  const stored = deps.grants?.(name);
  if (stored === undefined) throw new AppError('SESSION_NOT_ALLOWED', 'access to this session is denied');
  const found = sessions ? sessions.find((s) => s.name === name) : ((await deps.tmux.findSession(name)) ?? undefined);
  const grant = effectiveGrant(name, stored, found, (deps.now ?? Date.now)());
  assertCanRead(deps.config, name, grant);
  // effectiveGrant is null without a live session, so `found` is set here.
  if (found === undefined) throw new AppError('SESSION_NOT_ALLOWED', 'access to this session is denied');
  return found;
}
