/**
 * Who a caller is and what its authentication lets it do at most: one decision for every
 * effect. A principal comes only from authentication — the socket (its role), a verified
 * OAuth token, the gateway's own sign-in result (its static token, or none), the local
 * Unix user of a stdio gateway, or a dashboard operator's session — never from a name the
 * client gives itself. The operator's policy (whitelist, input policy, grants, guarded
 * commands) then decides per session; this module decides per effect:
 *
 *  - `read`: look (every authenticated principal);
 *  - `write`: change Terminal MCP's own state (notes, bindings, watches, supervisor
 *    policies, acknowledgements);
 *  - `input`: act on the host: type into a pane, approve queued input, arrange for the
 *    verifier or a deploy preview to run an operator-configured command;
 *  - `lifecycle`: start, close, restart or resize a tmux session (a launch profile's
 *    program, never a client's command line).
 *
 * OAuth scopes map onto effects: `terminal:read` → read, `terminal:write` → write,
 * `terminal:input` → input, lifecycle and write (typing is more than keeping a note; a
 * launch profile runs only what the operator configured, and every lifecycle call is off
 * until permissions.session_lifecycle). Principals
 * without OAuth (the static token, stdio, a process with the socket, a signed-in operator)
 * may do every effect their socket serves. Pure.
 */
import { GATEWAY_INPUT_SCOPE, GATEWAY_READ_SCOPE, GATEWAY_WRITE_SCOPE, type ErrorCode, type SocketRole } from '@terminal-mcp/contract';

export const EFFECTS = ['read', 'write', 'input', 'lifecycle'] as const;
export type Effect = (typeof EFFECTS)[number];

/**
 * - `oauth`: a gateway OAuth token the broker verified itself;
 * - `token`: the gateway's static bearer token (checked by the gateway);
 * - `anonymous`: an HTTP gateway client without any credential (only when the operator
 *   runs the gateway open on purpose): one identity for all of them;
 * - `stdio`: a stdio gateway, i.e. the local Unix user who started it;
 * - `socket`: a process that opened the role's socket and named no principal;
 * - `operator`: a signed-in dashboard operator (web.sock, session token validated);
 * - `observer`: the read-only observer's callers.
 */
export type PrincipalKind = 'oauth' | 'token' | 'anonymous' | 'stdio' | 'socket' | 'operator' | 'observer';

export interface Principal {
  readonly role: SocketRole;
  readonly kind: PrincipalKind;
  /** The identity: audit rows, per-client views, caps and quotas key on it. */
  readonly actor: string;
  /** What the authentication allows at most. */
  readonly effects: ReadonlySet<Effect>;
}

const ALL: ReadonlySet<Effect> = new Set(EFFECTS);
const READ_ONLY: ReadonlySet<Effect> = new Set<Effect>(['read']);
const NONE: ReadonlySet<Effect> = new Set<Effect>();

/** The effects an OAuth grant's scopes allow (unknown scopes allow nothing). */
export function effectsOfScopes(scopes: readonly string[]): ReadonlySet<Effect> {
  const out = new Set<Effect>();
  if (scopes.includes(GATEWAY_READ_SCOPE)) out.add('read');
  if (scopes.includes(GATEWAY_WRITE_SCOPE)) out.add('write');
  if (scopes.includes(GATEWAY_INPUT_SCOPE)) {
    out.add('input');
    out.add('lifecycle');
    out.add('write');
  }
  return out;
}

/** A principal of `role` authenticated without OAuth: every effect its socket serves
 * (the observer's socket serves reading only; a web.sock call without an operator session
 * may only read what the dashboard shows before sign-in). */
export function principalOf(role: SocketRole, kind: Exclude<PrincipalKind, 'oauth'>, actor: string): Principal {
  const effects = role === 'observer' || (role === 'web' && kind !== 'operator') ? READ_ONLY : ALL;
  return { role, kind, actor, effects };
}

/** A gateway OAuth caller; `scopes` empty for a token that no longer verifies. */
export function oauthPrincipal(actor: string, scopes: readonly string[]): Principal {
  return { role: 'gateway', kind: 'oauth', actor, effects: scopes.length === 0 ? NONE : effectsOfScopes(scopes) };
}

export interface EffectRefusal {
  readonly code: Extract<ErrorCode, 'INPUT_NOT_ALLOWED' | 'WRITE_NOT_ALLOWED' | 'UNAUTHENTICATED'>;
  readonly message: string;
  readonly hint: string;
}

/** THE decision: may `principal` cause `effect`? null when it may. */
export function refuseEffect(principal: Principal, effect: Effect): EffectRefusal | null {
  if (principal.effects.has(effect)) return null;
  if (principal.effects.size === 0) {
    return { code: 'UNAUTHENTICATED', message: 'the credential of this call does not verify', hint: 'Reconnect the client (sign in again).' };
  }
  if (effect === 'input') {
    return {
      code: 'INPUT_NOT_ALLOWED',
      message: principal.kind === 'oauth' ? 'this connection was approved without the input scope' : 'this caller may not type into terminals',
      hint: `The operator approved this OAuth client without ${GATEWAY_INPUT_SCOPE}. To type, reconnect the client and tick "Type into terminals" on the consent page.`,
    };
  }
  if (effect === 'lifecycle') {
    return {
      code: 'INPUT_NOT_ALLOWED',
      message: principal.kind === 'oauth' ? 'this connection was approved without the input scope' : 'this caller may not start or close sessions',
      hint: `Starting and closing sessions needs ${GATEWAY_INPUT_SCOPE}: reconnect the client and tick "Type into terminals" on the consent page.`,
    };
  }
  if (effect === 'write') {
    return {
      code: 'WRITE_NOT_ALLOWED',
      message: principal.kind === 'oauth' ? 'this connection was approved for reading only' : 'this caller may not change anything',
      hint: `The operator approved this OAuth client without ${GATEWAY_WRITE_SCOPE}. To keep notes, bindings or watches, reconnect the client and tick that scope on the consent page.`,
    };
  }
  return { code: 'UNAUTHENTICATED', message: 'this caller may not read', hint: 'Reconnect the client (sign in again).' };
}

/** The key of a principal's own view of the input audit, or null when it has none: every
 * unauthenticated HTTP client is the same anonymous principal, so none of them may see
 * "its own" attempts (they would be everyone's). */
export function perClientViewKey(principal: Principal): string | null {
  return principal.kind === 'anonymous' ? null : principal.actor;
}

/** How long a sign-in or a password typed again counts as fresh for the secret entry. */
export const SECRET_REAUTH_FRESH_MS = 5 * 60_000;

/**
 * The operator-only exception to the guarded-command gate: may `principal` answer a
 * password / passphrase / one-time-code prompt (the dashboard's secret entry)? Only a
 * signed-in operator on web.sock, and only within SECRET_REAUTH_FRESH_MS of proving their
 * password (a stolen dashboard cookie alone must not type into sudo). null when it may.
 */
export function refuseSecretEntry(principal: Principal, reauthenticatedAt: number | null, now: number): EffectRefusal | null {
  const basic = refuseEffect(principal, 'input');
  if (basic) return basic;
  if (principal.role !== 'web' || principal.kind !== 'operator') {
    return { code: 'INPUT_NOT_ALLOWED', message: 'only a signed-in operator on the dashboard answers a secret prompt', hint: 'Ask the person: call terminal_request_human with the session and why.' };
  }
  if (reauthenticatedAt === null || now - reauthenticatedAt > SECRET_REAUTH_FRESH_MS || reauthenticatedAt > now) {
    return { code: 'UNAUTHENTICATED', message: 'confirm with your dashboard password to answer a secret prompt', hint: 'Type your own dashboard password next to the secret (or sign in again) and send again.' };
  }
  return null;
}
