/** The read gate: turns the pure access decision into an error that says only that
 * access is denied — never anything about the session's content. */
import { AppError } from '@terminal-mcp/contract';
import type { BrokerConfig } from '../config/schema.js';
import type { SessionFacts, TmuxAdapter } from '../effects/tmux/types.js';
import { decideReadAccess } from '../policy/access.js';
import { effectiveGrant, type EffectiveGrant, type GrantRecord } from '../policy/grants.js';
import { sessionNotFound } from './resolve-session.js';

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
 * A name no session has is SESSION_NOT_FOUND with close matches from the listing (issue
 * 16: discovery already shows every name to every caller, so existence is no secret and
 * the model gets something to act on). An existing session that neither the whitelist nor
 * a live grant pinned to it admits is SESSION_NOT_ALLOWED, with the same message whatever
 * the reason (no grant, a stale or expired one) and nothing about its content.
 */
export async function resolveReadableSession(deps: ReadGateDeps, name: string, sessions?: readonly SessionFacts[]): Promise<SessionFacts> {
  // terminal_read off refuses before tmux is asked anything.
  assertReadEnabled(deps.config, name);
  const found = sessions ? sessions.find((s) => s.name === name) : ((await deps.tmux.findSession(name)) ?? undefined);
  if (found === undefined) throw sessionNotFound(name, sessions ?? (await deps.tmux.listSessions()));
  if (decideReadAccess(readPolicy(deps.config), name).allowed) return found;
  assertCanRead(deps.config, name, readGrantOf(deps, found));
  return found;
}

function assertReadEnabled(config: BrokerConfig, name: string): void {
  if (decideReadAccess(readPolicy(config), name).reason === 'READ_DISABLED') assertCanRead(config, name);
}
