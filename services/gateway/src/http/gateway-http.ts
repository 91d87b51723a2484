/**
 * The HTTP gateway: plain node:http, loopback only. Every request passes the same gate
 * first — Host, then Origin — and the MCP and metrics endpoints then need the bearer
 * token when one is configured (authenticate once per request, here, before routing).
 * Security assumption: a tunnel in front of us authenticates remote callers and forwards
 * the public Host; we trust no X-Forwarded-* header.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createBrokerClient, type BrokerClient } from '@terminal-mcp/broker-client';
import {
  bearerTokenMatches,
  createHostPolicy,
  DEFAULT_MAX_BODY_BYTES,
  hostForUrl,
  isAllowedHost,
  isAllowedOrigin,
  isLoopbackBindAddress,
  jsonRpcError,
  listenOnLoopback,
  type PublicHost,
  sendJson,
  wwwAuthenticate,
} from '@terminal-mcp/http-guard';
import type { Logger } from 'pino';
import { createGatewayLogger } from '../logger.js';
import { createToolMetrics, type RejectionReason, type ToolMetrics } from '../metrics.js';
import { versionInfo } from '../version.js';
import { sendLive, sendMetrics, sendReady, sendVersion } from './health.js';
import { handleMcpPost } from './mcp-endpoint.js';
import { DEFAULT_GATEWAY_HOST, DEFAULT_GATEWAY_PORT, GatewayConfigError } from './options.js';

export interface GatewayHttpOptions {
  /** Loopback only; anything else is refused with GatewayConfigError. Default 127.0.0.1. */
  host?: string;
  /** Default 8766; 0 picks a free port (see `port` on the result). */
  port?: number;
  /** Tunnel host names accepted in Host/Origin besides the loopback names. */
  publicHosts?: readonly PublicHost[];
  /** When set, /mcp and /health/metrics need `Authorization: Bearer <token>`. */
  token?: string;
  /** Defaults to a client on `<socket dir>/gateway.sock` from `env`. */
  broker?: BrokerClient<'gateway'>;
  env?: NodeJS.ProcessEnv;
  log?: Logger;
  metrics?: ToolMetrics;
  maxBodyBytes?: number;
  brokerTimeoutMs?: number;
}

export interface RunningGatewayHttp {
  host: string;
  port: number;
  /** e.g. http://127.0.0.1:8766/mcp */
  mcpUrl: string;
  /** e.g. http://127.0.0.1:8766/health/ready */
  healthUrl: string;
  metrics: ToolMetrics;
  close(): Promise<void>;
}

type Route = 'mcp' | 'live' | 'ready' | 'metrics' | 'version';

const ROUTES: Record<string, { route: Route; methods: readonly string[]; needsToken: boolean }> = {
  '/mcp': { route: 'mcp', methods: ['POST'], needsToken: true },
  '/health/live': { route: 'live', methods: ['GET', 'HEAD'], needsToken: false },
  '/health/ready': { route: 'ready', methods: ['GET', 'HEAD'], needsToken: false },
  '/health/metrics': { route: 'metrics', methods: ['GET', 'HEAD'], needsToken: true },
  '/version': { route: 'version', methods: ['GET', 'HEAD'], needsToken: false },
};

function pathOf(req: IncomingMessage): string {
  const raw = req.url ?? '/';
  const q = raw.indexOf('?');
  return q === -1 ? raw : raw.slice(0, q);
}

export async function startGatewayHttp(options: GatewayHttpOptions = {}): Promise<RunningGatewayHttp> {
  const host = options.host ?? DEFAULT_GATEWAY_HOST;
  const requestedPort = options.port ?? DEFAULT_GATEWAY_PORT;
  if (!isLoopbackBindAddress(host)) {
    throw new GatewayConfigError(
      `refusing to listen on ${host}: the gateway binds loopback only (127.0.0.0/8, ::1, localhost). ` +
        'Reach it remotely through an authenticated HTTPS tunnel and list the tunnel host in TERMINAL_MCP_PUBLIC_HOSTS.',
    );
  }
  const log = options.log ?? createGatewayLogger();
  const metrics = options.metrics ?? createToolMetrics();
  const broker = options.broker ?? createBrokerClient({ role: 'gateway', env: options.env ?? process.env });
  const token = options.token || undefined;
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const version = versionInfo();
  const serverDeps = { broker, metrics, log, brokerTimeoutMs: options.brokerTimeoutMs };
  let policy = createHostPolicy({ port: requestedPort, bindHost: host, publicHosts: options.publicHosts });

  const reject = (req: IncomingMessage, res: ServerResponse, status: number, reason: RejectionReason, message: string, headers: Record<string, string> = {}) => {
    metrics.observeRejection(reason);
    // The facts of the refusal (capped: the values are the attacker's), never bodies or tokens.
    const cap = (v: string | undefined) => v?.slice(0, 200);
    log.warn(
      { event: 'security.http_refused', reason, status, method: req.method, path: cap(pathOf(req)), host: cap(req.headers.host), origin: cap(req.headers.origin) },
      'HTTP request refused',
    );
    const body = pathOf(req) === '/mcp' ? jsonRpcError(message) : { error: message };
    sendJson(res, status, body, headers);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (!isAllowedHost(req.headers.host, policy)) {
      reject(req, res, 403, 'host', 'Forbidden: Host header not allowed');
      return;
    }
    if (!isAllowedOrigin(req.headers.origin, policy)) {
      reject(req, res, 403, 'origin', 'Forbidden: Origin not allowed');
      return;
    }
    const entry = ROUTES[pathOf(req)];
    if (!entry) {
      sendJson(res, 404, { error: 'not found' });
      return;
    }
    if (token && entry.needsToken && !bearerTokenMatches(req.headers.authorization, token)) {
      reject(req, res, 401, 'token', 'Unauthorized: a valid bearer token is required', {
        'WWW-Authenticate': wwwAuthenticate(req.headers.authorization !== undefined),
      });
      return;
    }
    if (!entry.methods.includes(req.method ?? '')) {
      // Stateless MCP has no standalone SSE stream (GET) and no session to delete (DELETE).
      const body = entry.route === 'mcp' ? jsonRpcError('Method not allowed: this server is stateless; use POST') : { error: 'method not allowed' };
      sendJson(res, 405, body, { Allow: entry.methods.join(', ') });
      return;
    }
    switch (entry.route) {
      case 'mcp':
        return handleMcpPost(req, res, { serverDeps, metrics, log, maxBodyBytes });
      case 'live':
        return sendLive(res);
      case 'ready':
        return sendReady(res, broker, log);
      case 'metrics':
        return sendMetrics(res, metrics);
      case 'version':
        return sendVersion(res, version);
    }
  };

  const server = createServer((req, res) => {
    const started = Date.now();
    res.on('finish', () => {
      log.debug({ event: 'http.request', method: req.method, path: pathOf(req), status: res.statusCode, ms: Date.now() - started }, 'request');
    });
    handle(req, res).catch((err: unknown) => {
      log.error({ event: 'http.handler_failed', err }, 'request handler failed');
      if (!res.headersSent) sendJson(res, 500, { error: 'internal error' });
      else res.destroy();
    });
  });

  // `localhost` resolves through the system resolver: this checks what we really bound.
  const address = await listenOnLoopback(server, host, requestedPort, (message) => new GatewayConfigError(message));
  policy = createHostPolicy({ port: address.port, bindHost: host, publicHosts: options.publicHosts });
  const base = `http://${hostForUrl(host)}:${address.port}`;

  let closing: Promise<void> | undefined;
  return {
    host,
    port: address.port,
    mcpUrl: `${base}/mcp`,
    healthUrl: `${base}/health/ready`,
    metrics,
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
        // Requests in flight get a moment to finish; then connections are cut.
        setTimeout(() => server.closeAllConnections(), 2_000).unref();
      });
      return closing;
    },
  };
}
