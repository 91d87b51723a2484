/**
 * Bounds on every connection an HTTP edge accepts (Postfix rule: every program that reads
 * untrusted input enforces limits): a client must finish its headers and its request in
 * time, an idle kept-alive connection is closed, one connection serves a bounded number
 * of requests, and only so many connections are open at once. Without these a few
 * slow-header connections (Slowloris) hold the service.
 */
import { createServer, type Server } from 'node:http';

export interface HttpLimits {
  /** All request headers must arrive within this. */
  headersTimeoutMs: number;
  /** The whole request (headers and body) must arrive within this; the answer may take
   * longer (a wait tool answers after up to 20 s). */
  requestTimeoutMs: number;
  /** An idle kept-alive connection is closed after this. */
  keepAliveTimeoutMs: number;
  maxRequestsPerSocket: number;
  /** New connections beyond this are closed at once. */
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
  server.maxConnections = limits.maxConnections;
  return server;
}
