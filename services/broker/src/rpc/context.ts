/**
 * Request context. The inner part carries no request: tests build it directly and call
 * procedures through `createCaller`. The outer part is derived from WHICH SOCKET
 * accepted the connection — that socket is the caller's role (Node cannot read peer
 * credentials; the boundary is the socket file's owner, group and mode) — and from what
 * authenticated the request (policy/authority.ts): a gateway OAuth token the broker
 * verifies itself, the gateway's word on how it let the request in (its static token,
 * none, or stdio and the local user), the dashboard operator's session token. Never from
 * a name the client gives itself.
 */
import { BROKER_HEADERS, CREDENTIAL_HEADER, type OperatorUser, type SocketRole } from '@terminal-mcp/contract';
import type { BrokerDeps } from './deps.js';
import { oauthPrincipalFromHeader } from '../oauth/caller.js';
import { oauthPrincipal, principalOf, type Principal } from '../policy/authority.js';

export interface BrokerContext {
  role: SocketRole;
  deps: BrokerDeps;
  /** Who is acting, for the audit log: the principal's identity. On web.sock an operator
   * procedure replaces it with `web:<username>` of the validated session token
   * (rpc/operator.ts). */
  actor: string;
  /** Who is acting and what its authentication allows (policy/authority.ts). */
  principal: Principal;
  /** web.sock only: the signed-in operator's session token, as sent in
   * OPERATOR_SESSION_HEADER. Unchecked here; operator procedures validate it. */
  operatorToken?: string | undefined;
  /** web.sock only: the operator behind `operatorToken`, once validated (operator-session.ts). */
  operator?: OperatorUser | undefined;
  /** The principal as the request's credential verifies now (access/caller.ts). */
  reverify?: (() => Principal) | undefined;
}

/** Tests name a principal, or an actor (a principal of kind `socket`: everything its
 * socket serves). */
export function createContextInner(opts: { role: SocketRole; deps: BrokerDeps; actor?: string; operatorToken?: string | undefined; principal?: Principal }): BrokerContext {
  const principal = opts.principal ?? principalOf(opts.role, opts.role === 'observer' ? 'observer' : 'socket', opts.actor ?? opts.role);
  return { role: opts.role, deps: opts.deps, actor: principal.actor, principal, operatorToken: opts.operatorToken };
}

/** The observer's and the dashboard's server name their end user in this header (the
 * observer from the verified token, the dashboard for reads before sign-in); recorded,
 * never trusted for access decisions. A gateway's is ignored. */
export const ACTOR_HEADER = BROKER_HEADERS.actor;

/** The dashboard's server sends the signed-in operator's session token (from the login
 * cookie) in this header; the broker validates it against webauth.db and derives the
 * actor from it, so reaching web.sock alone does not let anyone act as an operator. */
export const OPERATOR_SESSION_HEADER = BROKER_HEADERS.operatorSession;

const first = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

export function actorFromHeader(role: SocketRole, value: string | string[] | undefined): string {
  const raw = first(value);
  if (!raw) return role;
  const clean = raw.replace(/[^\w.@:-]/g, '').slice(0, 64);
  return clean ? `${role}:${clean}` : role;
}

/** A local user name as the gateway reports a stdio caller's (POSIX portable names). */
const UNIX_USER = /^[a-z_][a-z0-9_.-]{0,31}$/i;

/** The gateway's principal without OAuth, from PRINCIPAL_HEADER (see shared/contract
 * paths.ts). Anything unreadable, and no header at all, is the socket's own principal: a
 * process that can open gateway.sock is the gateway as far as the broker can tell. */
export function gatewayPrincipalFromHeader(value: string | string[] | undefined): Principal {
  const raw = first(value);
  if (raw === 'token') return principalOf('gateway', 'token', 'gateway:token');
  if (raw === 'anonymous') return principalOf('gateway', 'anonymous', 'gateway:anonymous');
  if (raw?.startsWith('stdio:') && UNIX_USER.test(raw.slice(6))) return principalOf('gateway', 'stdio', `gateway:stdio:${raw.slice(6)}`);
  return principalOf('gateway', 'socket', 'gateway:socket');
}

/** The operator token header, only on web.sock (other roles have no operators). Capped:
 * a token is 32 characters; anything longer is no token. */
export function operatorTokenFromHeader(role: SocketRole, value: string | string[] | undefined): string | undefined {
  if (role !== 'web') return undefined;
  const raw = first(value);
  return raw !== undefined && raw.length > 0 && raw.length <= 128 ? raw : undefined;
}

function principalFromRequest(role: SocketRole, deps: BrokerDeps, headers: Record<string, string | string[] | undefined>): Principal {
  if (role === 'gateway') {
    return oauthPrincipalFromHeader(deps, headers[CREDENTIAL_HEADER]) ?? gatewayPrincipalFromHeader(headers[BROKER_HEADERS.principal]);
  }
  return principalOf(role, role === 'observer' ? 'observer' : 'socket', actorFromHeader(role, headers[ACTOR_HEADER]));
}

/** The context of one request or WebSocket connection on `role`'s socket. */
export function contextFromRequest(role: SocketRole, deps: BrokerDeps, headers: Record<string, string | string[] | undefined>): BrokerContext {
  const ctx = createContextInner({
    role,
    deps,
    principal: principalFromRequest(role, deps, headers),
    operatorToken: operatorTokenFromHeader(role, headers[OPERATOR_SESSION_HEADER]),
  });
  // An OAuth token can be revoked after the request: whatever acts later for this caller
  // (an approved review) verifies it again (the token stays in this closure, in memory).
  const credential = role === 'gateway' ? headers[CREDENTIAL_HEADER] : undefined;
  if (credential !== undefined && ctx.principal.kind === 'oauth') ctx.reverify = () => oauthPrincipalFromHeader(deps, credential) ?? oauthPrincipal(ctx.actor, []);
  return ctx;
}
