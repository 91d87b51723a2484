/** One tRPC server per role, each on its own Unix socket: HTTP, tRPC over WebSocket
 * (subscriptions: the dashboard's live output) and the call link (queries and mutations as
 * messages on one WebSocket, shared/contract/src/broker-link.ts; what our clients use).
 * The context's role comes from the server the request arrived on, never from anything
 * the client sends. */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { createHTTPHandler } from '@trpc/server/adapters/standalone';
import { applyWSSHandler } from '@trpc/server/adapters/ws';
import { callProcedure, getErrorShape, getTRPCErrorFromUnknown } from '@trpc/server/unstable-core-do-not-import';
import { WebSocketServer, type WebSocket } from 'ws';
import { BROKER_CALL_PATH, brokerLinkMessageSchema, NOTE_LIMITS, SOCKET_ROLES, socketPathFor, type BrokerCall, type BrokerCallReply, type SocketRole } from '@terminal-mcp/contract';
import type { BrokerDeps } from './deps.js';
import { listenOnSocket, type SocketGroups } from '../effects/socket-files.js';
import type { EarlySockets } from '../effects/early-sockets.js';
import { contextFromRequest, type BrokerContext } from './context.js';
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
/** The gateway (note_add_attachment) and the dashboard (its upload form) send note images
 * in band (base64 of at most NOTE_LIMITS.attachmentBytes); only their sockets take
 * requests that large (the observer never writes notes). */
const ATTACHMENT_BODY_BYTES = Math.ceil((NOTE_LIMITS.attachmentBytes * 4) / 3) + 64 * 1024;
const MAX_BODY_BYTES_BY_ROLE: Record<SocketRole, number> = { gateway: ATTACHMENT_BODY_BYTES, observer: MAX_BODY_BYTES, web: ATTACHMENT_BODY_BYTES, notifier: MAX_BODY_BYTES };

function createRoleHandler(role: SocketRole, deps: BrokerDeps): ReturnType<typeof createHTTPHandler> {
  return createHTTPHandler({
    router: ROLE_ROUTERS[role],
    maxBodySize: MAX_BODY_BYTES_BY_ROLE[role],
    createContext: ({ req }) => contextFromRequest(role, deps, req.headers),
    onError: ({ error, path }) => {
      if (error.code === 'INTERNAL_SERVER_ERROR') deps.log.debug({ role, path }, 'request failed');
    },
  });
}

/** One call-link message: the procedure called with the context its own headers give,
 * exactly as an HTTP request with those headers would be (same router, same context
 * factory, same error shape). */
async function answerCall(role: SocketRole, deps: BrokerDeps, call: BrokerCall, signal: AbortSignal): Promise<BrokerCallReply> {
  const router = ROLE_ROUTERS[role];
  let ctx: BrokerContext | undefined;
  try {
    ctx = contextFromRequest(role, deps, call.headers);
    const data: unknown = await callProcedure({ router, path: call.path, getRawInput: () => Promise.resolve(call.input), ctx, type: call.type, signal, batchIndex: 0 });
    return { id: call.id, result: { data } };
  } catch (cause) {
    const error = getTRPCErrorFromUnknown(cause);
    if (error.code === 'INTERNAL_SERVER_ERROR') deps.log.debug({ role, path: call.path }, 'call failed');
    return { id: call.id, error: getErrorShape({ config: router._def._config, error, type: call.type, path: call.path, input: call.input, ctx }) };
  }
}

/** The call link on one connection. A message that is not a call or a cancel is no
 * client of ours: it is logged and the connection closed. Each call has its own abort
 * signal: a cancel or the connection closing aborts it (a wait stops waiting). */
function serveCallConnection(role: SocketRole, deps: BrokerDeps, ws: WebSocket): void {
  const inFlight = new Map<number, AbortController>();
  ws.on('close', () => {
    for (const call of inFlight.values()) call.abort();
    inFlight.clear();
  });
  ws.on('message', (data, isBinary) => {
    let message: BrokerCall | { cancel: number };
    try {
      if (isBinary) throw new Error('binary');
      message = brokerLinkMessageSchema.parse(JSON.parse(String(data)));
    } catch {
      deps.log.warn({ event: 'security.invalid_request', role }, 'unreadable broker call refused; connection closed');
      ws.close(1008, 'not a broker call');
      return;
    }
    if ('cancel' in message) {
      inFlight.get(message.cancel)?.abort();
      return;
    }
    const call = message;
    if (inFlight.has(call.id)) {
      deps.log.warn({ event: 'security.invalid_request', role }, 'broker call id reused while in flight; connection closed');
      ws.close(1008, 'call id in use');
      return;
    }
    const controller = new AbortController();
    inFlight.set(call.id, controller);
    void answerCall(role, deps, call, controller.signal).then((reply) => {
      if (inFlight.get(call.id) === controller) inFlight.delete(call.id);
      if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(reply));
    });
  });
}

/** tRPC over WebSocket (request path `/`) and the call link (BROKER_CALL_PATH) on the
 * role's own socket: the same router and context factory, so an upgraded connection has
 * exactly the HTTP requests' privilege. Returns the closer: it tells clients to reconnect
 * (wsLink then resubscribes to the next broker) and closes their sockets. */
function serveWebSocket(role: SocketRole, deps: BrokerDeps): { upgrade: (req: IncomingMessage, socket: Duplex, head: Buffer) => void; close: () => void } {
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_BODY_BYTES });
  const calls = new WebSocketServer({ noServer: true, maxPayload: MAX_BODY_BYTES, perMessageDeflate: false });
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
  calls.on('connection', (ws) => serveCallConnection(role, deps, ws));
  const upgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const target = req.url === BROKER_CALL_PATH ? calls : wss;
    target.handleUpgrade(req, socket, head, (ws) => target.emit('connection', ws, req));
  };
  const close = () => {
    handler.broadcastReconnectNotification();
    for (const client of [...wss.clients, ...calls.clients]) {
      client.close(1012, 'broker restarting');
      setTimeout(() => client.terminate(), 1_000).unref();
    }
    wss.close();
    calls.close();
  };
  return { upgrade, close };
}

/** `groups`: the group each role's socket is handed to (separate service users).
 * `early`: sockets that already listen (effects/early-sockets.ts, bin/main.ts): each role's
 * handlers are attached to its server, and what it held meanwhile is served now. */
export async function serveRoles(deps: BrokerDeps, socketDir: string, groups: SocketGroups = {}, early?: EarlySockets): Promise<RoleServers> {
  const servers: Server[] = [];
  const closeWebSockets: (() => void)[] = [];
  const sockets = {} as Record<SocketRole, string>;
  try {
    for (const role of SOCKET_ROLES) {
      const request = createRoleHandler(role, deps);
      const ws = serveWebSocket(role, deps);
      closeWebSockets.push(ws.close);
      if (early) {
        early.attach(role, { request, upgrade: ws.upgrade });
        servers.push(early.servers[role]);
        sockets[role] = early.sockets[role];
        continue;
      }
      const server = createServer(request);
      server.on('upgrade', ws.upgrade);
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
