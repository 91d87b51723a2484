/**
 * Request context. The inner part carries no request: tests build it directly and call
 * procedures through `createCaller`. The outer part is derived from WHICH SOCKET
 * accepted the connection — that socket is the caller's role (Node cannot read peer
 * credentials; the boundary is the socket file's owner, group and mode).
 */
import type { SocketRole } from '@terminal-mcp/contract';
import type { BrokerDeps } from '../deps.js';

export interface BrokerContext {
  role: SocketRole;
  deps: BrokerDeps;
  /** Who is acting, for the audit log: the role plus whatever the client names itself. */
  actor: string;
}

export function createContextInner(opts: { role: SocketRole; deps: BrokerDeps; actor?: string }): BrokerContext {
  return { role: opts.role, deps: opts.deps, actor: opts.actor ?? opts.role };
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
