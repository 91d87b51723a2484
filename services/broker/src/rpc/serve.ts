/** One tRPC HTTP server per role, each on its own Unix socket, which also serves tRPC
 * over WebSocket (subscriptions: the dashboard's live output). The context's role comes
 * from the server the request arrived on, never from anything the client sends. */
import type { Server } from 'node:http';
import { createHTTPServer } from '@trpc/server/adapters/standalone';
import { applyWSSHandler } from '@trpc/server/adapters/ws';
import { WebSocketServer } from 'ws';
import { NOTE_LIMITS, SOCKET_ROLES, socketPathFor, type SocketRole } from '@terminal-mcp/contract';
import type { BrokerDeps } from './deps.js';
import { listenOnSocket, type SocketGroups } from '../effects/socket-files.js';
import { contextFromRequest } from './context.js';
import { ROLE_ROUTERS } from './roles/index.js';

export interface RoleServers {
  sockets: Record<SocketRole, string>;
  /** The listening servers (the idle-exit watch counts their connections). */
  servers: readonly Server[];
  close(): Promise<void>;
}

/** Requests larger than this are refused before parsing (Postfix rule: size limits on
 * everything untrusted). */
const MAX_BODY_BYTES = 256 * 1024;
/** The gateway sends note images in band (base64 of at most NOTE_LIMITS.attachmentBytes);
 * its socket alone takes requests that large. */
const MAX_BODY_BYTES_BY_ROLE: Record<SocketRole, number> = { gateway: Math.ceil((NOTE_LIMITS.attachmentBytes * 4) / 3) + 64 * 1024, observer: MAX_BODY_BYTES, web: MAX_BODY_BYTES };

function createRoleServer(role: SocketRole, deps: BrokerDeps): Server {
  return createHTTPServer({
    router: ROLE_ROUTERS[role],
    maxBodySize: MAX_BODY_BYTES_BY_ROLE[role],
    createContext: ({ req }) => contextFromRequest(role, deps, req.headers),
    onError: ({ error, path }) => {
      if (error.code === 'INTERNAL_SERVER_ERROR') deps.log.debug({ role, path }, 'request failed');
    },
  });
}

/** tRPC over WebSocket on the role's own socket: the same router and context factory,
 * so an upgraded connection has exactly the HTTP requests' privilege. Returns the closer:
 * it tells clients to reconnect (wsLink then resubscribes to the next broker) and closes
 * their sockets. */
function serveWebSocket(role: SocketRole, server: Server, deps: BrokerDeps): () => void {
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_BODY_BYTES });
  const handler = applyWSSHandler({
    wss,
    router: ROLE_ROUTERS[role],
    createContext: ({ req }) => contextFromRequest(role, deps, req.headers),
    // A client that vanished without closing is found and its subscriptions end.
    keepAlive: { enabled: true, pingMs: 30_000, pongWaitMs: 5_000 },
    onError: ({ error, path }) => {
      if (error.code === 'INTERNAL_SERVER_ERROR') deps.log.debug({ role, path }, 'websocket request failed');
    },
  });
  server.on('upgrade', (req, socket, head) => {
    wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req));
  });
  return () => {
    handler.broadcastReconnectNotification();
    for (const client of wss.clients) {
      client.close(1012, 'broker restarting');
      setTimeout(() => client.terminate(), 1_000).unref();
    }
    wss.close();
  };
}

/** `groups`: the group each role's socket is handed to (separate service users). */
export async function serveRoles(deps: BrokerDeps, socketDir: string, groups: SocketGroups = {}): Promise<RoleServers> {
  const servers: Server[] = [];
  const closeWebSockets: (() => void)[] = [];
  const sockets = {} as Record<SocketRole, string>;
  try {
    for (const role of SOCKET_ROLES) {
      const server = createRoleServer(role, deps);
      closeWebSockets.push(serveWebSocket(role, server, deps));
      const path = socketPathFor(socketDir, role);
      await listenOnSocket(server, path, groups[role]);
      servers.push(server);
      sockets[role] = path;
    }
  } catch (err) {
    for (const close of closeWebSockets) close();
    await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
    throw err;
  }
  return {
    sockets,
    servers,
    async close() {
      for (const close of closeWebSockets) close();
      for (const s of servers) s.closeAllConnections();
      await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
    },
  };
}
