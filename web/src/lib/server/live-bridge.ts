/**
 * The `/live` WebSocket: browser <-> this server, broker live subscriptions behind it.
 * At the upgrade, before any byte of a session is sent: Host must name us, Origin must be
 * exactly our own origin (a page on another local port carries the operator's cookie —
 * loopback ports are the same *site* — so the cookie alone proves nothing), and the
 * session cookie must be valid with no pending password change. Afterwards the server
 * subscribes only to sessions the broker lists as readable for the web role (the broker
 * enforces again on its side; a node session whose node is down is left to the broker:
 * `followable`), re-checks the login and readability periodically, and drops everything
 * when either ends.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { createBrokerClient, describeBrokerFailure, type BrokerClient } from '@terminal-mcp/broker-client';
import { AUTH_LIMITS, LIMITS, PANE_REF_PATTERN, type OperatorUser } from '@terminal-mcp/contract';
import { isAllowedHost, isSameOriginMutation, ownOrigin, type HostPolicy } from '@terminal-mcp/http-guard';
import { LIVE_MAX_CLIENT_MESSAGE_BYTES, LIVE_MAX_SUBSCRIPTIONS, LIVE_PATH, liveKey, type LiveServerMessage } from '../live-protocol.js';
import { createLiveSource, type LiveSource } from './broker-live.js';
import { resolveRequestOrigin } from './forwarded.js';
import { logEvent } from './log.js';
import { sessionTokenFromCookieHeader } from './session-cookie.js';

/** How often an open socket re-checks its login and its sessions' readability. */
const RECHECK_MS = 15_000;
/** A browser that cannot keep up is disconnected (it reconnects and gets a fresh screen). */
const MAX_BUFFERED_BYTES = 8 * 1024 * 1024;

export interface LiveBridgeOptions {
  policy: () => HostPolicy;
  trustedProxy: string | undefined;
  broker?: BrokerClient<'web'>;
  live?: LiveSource;
}

export interface LiveBridge {
  /** Returns true when it took the request (path /live), false to let others handle it. */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): boolean;
  close(): Promise<void>;
}

function refuse(socket: Duplex, status: number, text: string): void {
  socket.end(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(text)}\r\n\r\n${text}`);
}

function parseClientMessage(data: unknown): { op: 'subscribe' | 'unsubscribe'; session: string; pane?: string } | undefined {
  if (!(data instanceof Buffer) || data.length > LIVE_MAX_CLIENT_MESSAGE_BYTES) return undefined;
  let v: unknown;
  try {
    v = JSON.parse(data.toString('utf8'));
  } catch {
    return undefined;
  }
  if (typeof v !== 'object' || v === null) return undefined;
  const { op, session, pane } = v as { op?: unknown; session?: unknown; pane?: unknown };
  if ((op !== 'subscribe' && op !== 'unsubscribe') || typeof session !== 'string') return undefined;
  if (session.length < 1 || session.length > LIMITS.sessionName) return undefined;
  // A pane is `%id` or `window.pane` only (the broker checks it again).
  if (pane !== undefined && (typeof pane !== 'string' || !PANE_REF_PATTERN.test(pane))) return undefined;
  return pane === undefined ? { op, session } : { op, session, pane };
}

export function createLiveBridge(options: LiveBridgeOptions): LiveBridge {
  const wss = new WebSocketServer({ noServer: true, maxPayload: LIVE_MAX_CLIENT_MESSAGE_BYTES, perMessageDeflate: false });
  let brokerClient = options.broker;
  const broker = () => (brokerClient ??= createBrokerClient({ role: 'web' }));
  let liveSource = options.live;
  const live = () => (liveSource ??= createLiveSource());

  async function validate(token: string): Promise<OperatorUser | null> {
    const valid = await broker().auth.validateSession.query({ token });
    return valid && !valid.user.mustChangePassword ? valid.user : null;
  }

  /** Whether the broker lists `session` as readable for the web role. A `node:session`
   * whose node is down or slow cannot be listed: that one is left to the broker, whose node
   * stream captures nothing while the node is down and asks the node's gate before every
   * capture once it is up (it tells the outage itself, NODE_UNAVAILABLE with the hint). */
  async function followable(): Promise<(session: string) => boolean> {
    const { sessions, nodes } = await broker().sessions.list.query({});
    const readable = new Set(sessions.filter((s) => s.read_allowed).map((s) => s.name));
    const unlisted = new Set((nodes ?? []).filter((n) => n.node !== 'local' && n.state !== 'up').map((n) => n.node));
    return (session) => {
      if (readable.has(session)) return true;
      const colon = session.indexOf(':');
      return colon > 0 && unlisted.has(session.slice(0, colon));
    };
  }

  function serve(ws: WebSocket, token: string, user: OperatorUser, clientIp: string): void {
    /** Subscriptions by liveKey(session, pane), each with its session and pane. */
    const subs = new Map<string, { session: string; pane: string | undefined; stop: () => void }>();
    const send = (m: LiveServerMessage) => {
      if (ws.readyState !== ws.OPEN) return;
      if (ws.bufferedAmount > MAX_BUFFERED_BYTES) {
        ws.close(4008, 'too slow');
        return;
      }
      ws.send(JSON.stringify(m));
    };
    const named = (session: string, pane: string | undefined) => (pane === undefined ? { session } : { session, pane });
    const drop = (key: string) => {
      subs.get(key)?.stop();
      subs.delete(key);
    };
    const dropAll = () => {
      for (const key of [...subs.keys()]) drop(key);
    };

    const recheck = setInterval(() => {
      void (async () => {
        try {
          if (!(await validate(token))) {
            ws.close(4001, 'signed out');
            return;
          }
          if (subs.size === 0) return;
          const mayFollow = await followable();
          for (const [key, sub] of [...subs.entries()]) {
            if (!mayFollow(sub.session)) {
              drop(key);
              send({ kind: 'error', ...named(sub.session, sub.pane), code: 'SESSION_NOT_ALLOWED' });
            }
          }
        } catch (err) {
          if (describeBrokerFailure(err).code !== 'BROKER_UNAVAILABLE') ws.close(1011, 'recheck failed');
        }
      })();
    }, RECHECK_MS);
    recheck.unref();

    ws.on('message', (data) => {
      const msg = parseClientMessage(data);
      if (!msg) {
        ws.close(1008, 'bad message');
        return;
      }
      const key = liveKey(msg.session, msg.pane);
      const who = named(msg.session, msg.pane);
      if (msg.op === 'unsubscribe') {
        drop(key);
        return;
      }
      if (subs.has(key)) return;
      if (subs.size >= LIVE_MAX_SUBSCRIPTIONS) {
        send({ kind: 'error', ...who, code: 'INVALID_ARGUMENT' });
        return;
      }
      // Reserve the slot at once so a repeated subscribe cannot race the checks below.
      let cancelled = false;
      subs.set(key, {
        ...who,
        pane: msg.pane,
        stop: () => {
          cancelled = true;
        },
      });
      void (async () => {
        try {
          if (!(await validate(token))) {
            ws.close(4001, 'signed out');
            return;
          }
          if (!(await followable())(msg.session)) {
            subs.delete(key);
            send({ kind: 'error', ...who, code: 'SESSION_NOT_ALLOWED' });
            return;
          }
        } catch (err) {
          subs.delete(key);
          send({ kind: 'error', ...who, code: describeBrokerFailure(err).code });
          return;
        }
        if (cancelled || ws.readyState !== ws.OPEN) return;
        const stop = live().subscribe(
          msg.session,
          {
            frame: send,
            error: (code) => {
              subs.delete(key);
              send({ kind: 'error', ...who, code });
            },
            end: () => {
              subs.delete(key);
              send({ kind: 'end', ...who });
            },
          },
          token,
          msg.pane,
        );
        subs.set(key, { ...who, pane: msg.pane, stop });
      })();
    });

    ws.on('close', () => {
      clearInterval(recheck);
      dropAll();
    });
    ws.on('error', () => ws.terminate());
    logEvent('info', { event: 'web.live_opened', userId: user.id, username: user.username, clientIp });
  }

  return {
    handleUpgrade(req, socket, head) {
      const path = (req.url ?? '').split('?')[0];
      if (path !== LIVE_PATH) return false;
      const policy = options.policy();
      const host = req.headers.host;
      if (!isAllowedHost(host, policy)) {
        refuse(socket, 403, 'Forbidden');
        return true;
      }
      const { protocol, clientIp } = resolveRequestOrigin(req.socket.remoteAddress, req.headers, options.trustedProxy);
      const origin = typeof req.headers.origin === 'string' ? req.headers.origin : undefined;
      const referer = typeof req.headers.referer === 'string' ? req.headers.referer : undefined;
      if (!isSameOriginMutation({ origin, referer }, ownOrigin(protocol, host!))) {
        logEvent('warn', { event: 'web.cross_origin_refused', method: 'UPGRADE', path, origin: origin ?? null, cookie: sessionTokenFromCookieHeader(req.headers.cookie) !== undefined, clientIp });
        refuse(socket, 403, 'Forbidden');
        return true;
      }
      const token = sessionTokenFromCookieHeader(req.headers.cookie);
      if (!token || token.length > AUTH_LIMITS.tokenMax) {
        refuse(socket, 401, 'Unauthorized');
        return true;
      }
      validate(token).then(
        (user) => {
          if (!user) {
            refuse(socket, 401, 'Unauthorized');
            return;
          }
          if (socket.destroyed) return;
          wss.handleUpgrade(req, socket, head, (ws) => serve(ws, token, user, clientIp));
        },
        (err: unknown) => {
          const code = describeBrokerFailure(err).code;
          refuse(socket, code === 'BROKER_UNAVAILABLE' ? 503 : 500, code === 'BROKER_UNAVAILABLE' ? 'Service Unavailable' : 'Internal Server Error');
        },
      );
      return true;
    },
    async close() {
      for (const ws of wss.clients) ws.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      await liveSource?.close();
    },
  };
}
