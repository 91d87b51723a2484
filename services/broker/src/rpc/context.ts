/**
 * Request context. The inner part carries no request: tests build it directly and call
 * procedures through `createCaller`. The outer part is derived from WHICH SOCKET
 * accepted the connection — that socket is the caller's role (Node cannot read peer
 * credentials; the boundary is the socket file's owner, group and mode).
 */
import type { IncomingHttpHeaders } from 'node:http';
import { CREDENTIAL_HEADER, type SocketRole } from '@terminal-mcp/contract';
import type { BrokerDeps } from '../deps.js';
import { oauthCallerFromHeader, type OAuthCaller } from '../oauth/caller.js';

export interface BrokerContext {
  role: SocketRole;
  deps: BrokerDeps;
  /** Who is acting, for the audit log: the role plus whatever the client names itself. */
  actor: string;
  /** A gateway request made for an OAuth client: verified by the broker (oauth/caller.ts). */
  oauth?: OAuthCaller;
}

export function createContextInner(opts: { role: SocketRole; deps: BrokerDeps; actor?: string; oauth?: OAuthCaller }): BrokerContext {
  return { role: opts.role, deps: opts.deps, actor: opts.oauth?.actor ?? opts.actor ?? opts.role, ...(opts.oauth ? { oauth: opts.oauth } : {}) };
}

/** The context of one request on a role's socket (HTTP or WebSocket upgrade). */
export function createRequestContext(role: SocketRole, deps: BrokerDeps, headers: IncomingHttpHeaders): BrokerContext {
  const oauth = oauthCallerFromHeader(deps, role, headers[CREDENTIAL_HEADER]);
  return createContextInner({ role, deps, actor: actorFromHeader(role, headers[ACTOR_HEADER]), ...(oauth ? { oauth } : {}) });
}

/** Clients may name their end user (e.g. the MCP client name) in this header; it is
 * recorded, never trusted for access decisions. */
export const ACTOR_HEADER = 'x-terminal-mcp-actor';

export function actorFromHeader(role: SocketRole, value: string | string[] | undefined): string {
  const raw = Array.isArray(value) ? value[0] : value;
  if (!raw) return role;
  const clean = raw.replace(/[^\w.@:-]/g, '').slice(0, 64);
  return clean ? `${role}:${clean}` : role;
}
