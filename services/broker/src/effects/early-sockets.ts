/**
 * The role sockets, listening before the broker's slow work (loading its procedures,
 * opening stores, reaching tmux: seconds on a busy machine; issue 44 measured 13.5 s). A
 * client that connects meanwhile is not refused: its requests and WebSocket upgrades are
 * held and handed to the real servers the moment they are attached (rpc/serve.ts), so the
 * first call waits for the start instead of failing with BROKER_UNAVAILABLE. One question
 * is answered at once: `GET /health.ready` (tRPC over HTTP) says the broker is starting.
 *
 * This module loads nothing heavy (node:http and the socket files), so it runs right
 * after the config is read. Each socket is created exactly as before (listenOnSocket:
 * 0660 under the umask, its group), so the socket is still the credential from the first
 * connection on: the role of a held request is the socket it arrived on.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { BROKER_CALL_PATH, SOCKET_ROLES, socketPathFor, type SocketRole } from '@terminal-mcp/contract';
import { listenOnSocket, type SocketGroups } from './socket-files.js';

/** What a role's real server does with a request and an upgrade. */
export interface RoleHandlers {
  request(req: IncomingMessage, res: ServerResponse): void;
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
}

export interface EarlySockets {
  readonly sockets: Record<SocketRole, string>;
  readonly servers: Record<SocketRole, Server>;
  /** From now on `role`'s requests and upgrades go to `handlers`, the held ones first. */
  attach(role: SocketRole, handlers: RoleHandlers): void;
  /** Answers what is held with 503 and closes the servers (a start that failed). */
  close(): Promise<void>;
}

/** Held requests and upgrades per socket while starting; more are answered 503 at once. */
const MAX_HELD = 256;

type Held = { kind: 'request'; req: IncomingMessage; res: ServerResponse } | { kind: 'upgrade'; req: IncomingMessage; socket: Duplex; head: Buffer };

function startingAnswer(res: ServerResponse): void {
  // The shape of a tRPC query result, so a plain HTTP probe reads it like the real one.
  const body = JSON.stringify({ result: { data: { ready: false, starting: true, tmux: { ok: false, detail: 'the broker is starting' }, stores: [] } } });
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

function refuse(item: Held): void {
  if (item.kind === 'request') {
    if (!item.res.headersSent) item.res.writeHead(503, { 'content-type': 'text/plain', connection: 'close' });
    item.res.end('the broker is not serving\n');
  } else {
    item.socket.end('HTTP/1.1 503 Service Unavailable\r\nconnection: close\r\ncontent-length: 0\r\n\r\n');
  }
}

export async function listenEarly(socketDir: string, groups: SocketGroups = {}): Promise<EarlySockets> {
  const servers = {} as Record<SocketRole, Server>;
  const sockets = {} as Record<SocketRole, string>;
  const held = new Map<SocketRole, Held[]>();
  const attached = new Map<SocketRole, RoleHandlers>();
  let closed = false;

  const take = (role: SocketRole, item: Held) => {
    const handlers = attached.get(role);
    if (handlers) {
      if (item.kind === 'request') handlers.request(item.req, item.res);
      else handlers.upgrade(item.req, item.socket, item.head);
      return;
    }
    if (item.kind === 'request' && item.req.method === 'GET' && (item.req.url ?? '').split('?')[0] === '/health.ready') return startingAnswer(item.res);
    // Only the call link's upgrade is held. A tRPC WebSocket (subscriptions) handed over
    // after the start lost its resubscription (live-reconnect.test.ts: no frame from the
    // new broker, 3 of 3 on a quiet machine; cause inside the handover not found): refused,
    // its link retries and reaches the built broker.
    if (item.kind === 'upgrade' && (item.req.url ?? '').split('?')[0] !== BROKER_CALL_PATH) return refuse(item);
    const queue = held.get(role)!;
    if (closed || queue.length >= MAX_HELD) return refuse(item);
    queue.push(item);
    // A client that gives up meanwhile is dropped from the queue.
    const gone = () => {
      const i = queue.indexOf(item);
      if (i >= 0) queue.splice(i, 1);
    };
    (item.kind === 'request' ? item.req.socket : item.socket).once('close', gone);
  };

  try {
    for (const role of SOCKET_ROLES) {
      held.set(role, []);
      const server = createServer();
      server.on('request', (req, res) => take(role, { kind: 'request', req, res }));
      server.on('upgrade', (req, socket, head) => take(role, { kind: 'upgrade', req, socket, head }));
      const path = socketPathFor(socketDir, role);
      await listenOnSocket(server, path, groups[role]);
      servers[role] = server;
      sockets[role] = path;
    }
  } catch (err) {
    await Promise.all(Object.values(servers).map((s) => new Promise((r) => s.close(r))));
    throw err;
  }

  return {
    sockets,
    servers,
    attach(role, handlers) {
      attached.set(role, handlers);
      const queue = held.get(role)!.splice(0);
      for (const item of queue) take(role, item);
    },
    async close() {
      closed = true;
      for (const queue of held.values()) for (const item of queue.splice(0)) refuse(item);
      for (const s of Object.values(servers)) s.closeAllConnections();
      await Promise.all(Object.values(servers).map((s) => new Promise((r) => s.close(r))));
    },
  };
}
