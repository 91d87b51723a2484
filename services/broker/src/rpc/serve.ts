/** One tRPC HTTP server per role, each on its own Unix socket. The context's role comes
 * from the server the request arrived on, never from anything the client sends. */
import type { Server } from 'node:http';
import { createHTTPServer } from '@trpc/server/adapters/standalone';
import { SOCKET_ROLES, socketPathFor, type SocketRole } from '@terminal-mcp/contract';
import type { BrokerDeps } from '../deps.js';
import { listenOnSocket } from '../effects/socket-files.js';
import { actorFromHeader, ACTOR_HEADER, createContextInner } from './context.js';
import { ROLE_ROUTERS } from './roles/index.js';

export interface RoleServers {
  sockets: Record<SocketRole, string>;
  close(): Promise<void>;
}

/** Requests larger than this are refused before parsing (Postfix rule: size limits on
 * everything untrusted). */
const MAX_BODY_BYTES = 256 * 1024;

function createRoleServer(role: SocketRole, deps: BrokerDeps): Server {
  return createHTTPServer({
    router: ROLE_ROUTERS[role],
    maxBodySize: MAX_BODY_BYTES,
    createContext: ({ req }) => createContextInner({ role, deps, actor: actorFromHeader(role, req.headers[ACTOR_HEADER]) }),
    onError: ({ error, path }) => {
      if (error.code === 'INTERNAL_SERVER_ERROR') deps.log.debug({ role, path }, 'request failed');
    },
  });
}

export async function serveRoles(deps: BrokerDeps, socketDir: string): Promise<RoleServers> {
  const servers: Server[] = [];
  const sockets = {} as Record<SocketRole, string>;
  try {
    for (const role of SOCKET_ROLES) {
      const server = createRoleServer(role, deps);
      const path = socketPathFor(socketDir, role);
      await listenOnSocket(server, path);
      servers.push(server);
      sockets[role] = path;
    }
  } catch (err) {
    await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
    throw err;
  }
  return {
    sockets,
    async close() {
      for (const s of servers) s.closeAllConnections();
      await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
    },
  };
}
