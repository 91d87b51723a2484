/**
 * Request context. The inner part carries no request: tests build it directly and call
 * procedures through `createCaller`. The outer part is derived from WHICH SOCKET
 * accepted the connection — that socket is the caller's role (Node cannot read peer
 * credentials; the boundary is the socket file's owner, group and mode).
 */
import { BROKER_HEADERS, CREDENTIAL_HEADER, type SocketRole } from '@terminal-mcp/contract';
import type { BrokerDeps } from './deps.js';
import { oauthCallerFromHeader, type OAuthCaller } from '../oauth/caller.js';

export interface BrokerContext {
  role: SocketRole;
  deps: BrokerDeps;
  /** Who is acting, for the audit log: the role plus whatever the client names itself.
   * On web.sock an operator procedure replaces it with `web:<username>` of the validated
   * session token (rpc/operator.ts). */
  actor: string;
  /** web.sock only: the signed-in operator's session token, as sent in
   * OPERATOR_SESSION_HEADER. Unchecked here; operator procedures validate it. */
  operatorToken?: string | undefined;
  /** A gateway request made for an OAuth client: verified by the broker (oauth/caller.ts). */
  oauth?: OAuthCaller;
}

export function createContextInner(opts: { role: SocketRole; deps: BrokerDeps; actor?: string; operatorToken?: string | undefined; oauth?: OAuthCaller }): BrokerContext {
  return {
    role: opts.role,
    deps: opts.deps,
    actor: opts.oauth?.actor ?? opts.actor ?? opts.role,
    operatorToken: opts.operatorToken,
    ...(opts.oauth ? { oauth: opts.oauth } : {}),
  };
}

/** Clients may name their end user (e.g. the MCP client name) in this header; it is
 * recorded, never trusted for access decisions. */
export const ACTOR_HEADER = BROKER_HEADERS.actor;

/** The dashboard's server sends the signed-in operator's session token (from the login
 * cookie) in this header; the broker validates it against webauth.db and derives the
 * actor from it, so reaching web.sock alone does not let anyone act as an operator. */
export const OPERATOR_SESSION_HEADER = BROKER_HEADERS.operatorSession;

export function actorFromHeader(role: SocketRole, value: string | string[] | undefined): string {
  const raw = Array.isArray(value) ? value[0] : value;
  if (!raw) return role;
  const clean = raw.replace(/[^\w.@:-]/g, '').slice(0, 64);
  return clean ? `${role}:${clean}` : role;
}

/** The operator token header, only on web.sock (other roles have no operators). Capped:
 * a token is 32 characters; anything longer is no token. */
export function operatorTokenFromHeader(role: SocketRole, value: string | string[] | undefined): string | undefined {
  if (role !== 'web') return undefined;
  const raw = Array.isArray(value) ? value[0] : value;
  return raw !== undefined && raw.length > 0 && raw.length <= 128 ? raw : undefined;
}

/** The context of one request or WebSocket connection on `role`'s socket. */
export function contextFromRequest(role: SocketRole, deps: BrokerDeps, headers: Record<string, string | string[] | undefined>): BrokerContext {
  const oauth = oauthCallerFromHeader(deps, role, headers[CREDENTIAL_HEADER]);
  return createContextInner({
    role,
    deps,
    actor: actorFromHeader(role, headers[ACTOR_HEADER]),
    operatorToken: operatorTokenFromHeader(role, headers[OPERATOR_SESSION_HEADER]),
    ...(oauth ? { oauth } : {}),
  });
}
