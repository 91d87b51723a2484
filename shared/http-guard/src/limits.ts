/**
 * Bounds on every connection an HTTP edge accepts (Postfix rule: every program that reads
 * untrusted input enforces limits): a client must finish its headers and its request in
 * time, an idle kept-alive connection is closed, one connection serves a bounded number
 * of requests, and only so many connections are open at once. Without these a few
 * slow-header connections (Slowloris) hold the service.
 *
 * The connection cap does not let slow connections lock others out: when it is reached,
 * a new connection sheds the oldest one that has still not finished sending its request
 * headers (a client that is not slow on purpose sends them in one packet); only when no
 * such connection is open is the new one refused.
 */
import { createServer, type Server } from 'node:http';
import type { Socket } from 'node:net';

export interface HttpLimits {
  /** All request headers must arrive within this. */
  headersTimeoutMs: number;
  /** The whole request (headers and body) must arrive within this; the answer may take
   * longer (a wait tool answers after up to 20 s). */
  requestTimeoutMs: number;
  /** An idle kept-alive connection is closed after this. */
  keepAliveTimeoutMs: number;
  maxRequestsPerSocket: number;
  /** Open connections at most: beyond it, the oldest still sending its headers is shed
   * for the new one, else the new one is closed at once. */
  maxConnections: number;
  /** How often Node checks the two request timeouts. */
  checkIntervalMs: number;
}

export const DEFAULT_HTTP_LIMITS: HttpLimits = {
  headersTimeoutMs: 20_000,
  requestTimeoutMs: 60_000,
  keepAliveTimeoutMs: 5_000,
  maxRequestsPerSocket: 1_000,
  maxConnections: 256,
  checkIntervalMs: 5_000,
};

/** A node:http server with the limits applied; attach the request listener yourself. */
export function createBoundedServer(overrides: Partial<HttpLimits> = {}): Server {
  const limits = { ...DEFAULT_HTTP_LIMITS, ...overrides };
  const server = createServer({
    headersTimeout: Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs),
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    connectionsCheckingInterval: limits.checkIntervalMs,
  });
  server.maxRequestsPerSocket = limits.maxRequestsPerSocket;
  // Connections still sending their first request's headers, oldest first (Set order).
  const unfinished = new Set<Socket>();
  let open = 0;
  server.on('connection', (socket: Socket) => {
    if (open >= limits.maxConnections) {
      const oldest = unfinished.values().next().value as Socket | undefined;
      if (oldest === undefined) {
        socket.destroy();
        return;
      }
      unfinished.delete(oldest);
      oldest.destroy();
    }
    open += 1;
    unfinished.add(socket);
    socket.once('close', () => {
      open -= 1;
      unfinished.delete(socket);
    });
  });
  // 'request' is emitted once the headers are complete.
  server.on('request', (req) => unfinished.delete(req.socket));
  return server;
}
