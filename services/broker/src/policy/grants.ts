/**
 * Access grants as pure decisions: does a stored grant still apply to the session tmux has
 * now, may a grant be made, when does it end. No I/O: the store and the tmux facts are
 * passed in.
 *
 * A grant is pinned to a session's identity (tmux server pid, `$session_id`, creation
 * time), not to its name: tmux ids restart at `$0` with the server, and anyone who can run
 * tmux can create a session with a granted name. A session recreated under the same name
 * is a different session and the grant does not apply to it ("stale"); the row is kept so
 * the dashboard can show what was lost, and is replaced by the next grant for that name.
 *
 * How grants combine with the config:
 * - read: a read grant admits a name the whitelist (`allowed_session_patterns`) does not.
 *   Granting a whitelisted session is allowed (it then keeps reading if the whitelist is
 *   narrowed later). `permissions.terminal_read: false` still turns all reading off.
 * - input: requires read (of the grant itself; revoking read revokes input). An input
 *   grant is the operator's per-session "may drive"; the input path still applies
 *   `permissions.terminal_input`, deny rules, the guarded-command and copy-mode checks.
 *   Whitelisted sessions can be granted input too: the whitelist admits reading only.
 * - sensitive names (policy/access.ts `isSensitiveName`) can never be granted, and a
 *   stored grant for one (an older build, a hand-edited file) is ignored.
 */
import { isSensitiveName } from './access.js';
import { sameSession, type SessionIdentity } from './identity.js';

export interface GrantRecord {
  readonly sessionName: string;
  readonly identity: SessionIdentity;
  readonly read: boolean;
  readonly input: boolean;
  /** ms since the epoch; null: until revoked */
  readonly expiresAt: number | null;
  readonly grantedBy: string;
  readonly createdAt: number;
  readonly updatedAt: number;
}

/** What a grant admits right now. */
export interface EffectiveGrant {
  readonly read: boolean;
  readonly input: boolean;
}

export type GrantState = 'active' | 'expired' | 'stale';

/** `current` is the identity of the live session with the grant's name, if there is one.
 * Stale wins over expired: a replaced session's grant can never come back. */
export function grantState(grant: Pick<GrantRecord, 'identity' | 'expiresAt'>, current: SessionIdentity | undefined, now: number): GrantState {
  if (current === undefined || !sameSession(grant.identity, current)) return 'stale';
  if (grant.expiresAt !== null && grant.expiresAt <= now) return 'expired';
  return 'active';
}

/** The grant that applies to session `name` with identity `current`, or null. */
export function effectiveGrant(name: string, grant: GrantRecord | undefined, current: SessionIdentity | undefined, now: number): EffectiveGrant | null {
  if (grant === undefined || grant.sessionName !== name || isSensitiveName(name)) return null;
  if (grantState(grant, current, now) !== 'active' || !grant.read) return null;
  return { read: true, input: grant.input };
}

export type GrantRequestRefusal = 'SENSITIVE_NAME' | 'INPUT_NEEDS_READ';

/** May the operator give session `name` these flags? Taking everything away is always
 * allowed (it is a revoke). */
export function checkGrantRequest(name: string, flags: { read: boolean; input: boolean }): GrantRequestRefusal | null {
  if (flags.input && !flags.read) return 'INPUT_NEEDS_READ';
  if ((flags.read || flags.input) && isSensitiveName(name)) return 'SENSITIVE_NAME';
  return null;
}

export type GrantExpiry = { ok: true; expiresAt: number | null } | { ok: false; reason: 'NOT_IN_FUTURE' | 'TOO_FAR' };

/** The end of a time box given as a duration or an absolute ISO time; at most `maxSeconds`
 * ahead. */
export function resolveGrantExpiry(
  request: { expiresInSeconds?: number | undefined; expiresAt?: string | undefined },
  now: number,
  maxSeconds: number,
): GrantExpiry {
  let end: number;
  if (request.expiresInSeconds !== undefined) end = now + request.expiresInSeconds * 1000;
  else if (request.expiresAt !== undefined) end = Date.parse(request.expiresAt);
  else return { ok: true, expiresAt: null };
  if (!Number.isFinite(end) || end <= now) return { ok: false, reason: 'NOT_IN_FUTURE' };
  if (end > now + maxSeconds * 1000) return { ok: false, reason: 'TOO_FAR' };
  return { ok: true, expiresAt: end };
}
