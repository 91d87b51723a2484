/**
 * The HTTP service both MCP front ends run (the gateway's terminal-mcp-http and the
 * observer): plain node:http, loopback only, with bounded connections. What a front end
 * brings is configuration, its authentication, its MCP server (tool table) and a few
 * routes of its own; everything else is here, once:
 *  - every request passes the same gate first — Host, then Origin (a page on another
 *    site, or a DNS-rebound name, reaches a loopback port too);
 *  - with OAuth on, the authorization server (@terminal-mcp/oauth-http) at the ROOT of
 *    the public origin (hosted clients call /authorize, /token, /register there);
 *  - /mcp: authentication before anything else (an unauthenticated client of any method
 *    learns where to get a token), then POST (and DELETE with live sessions) through
 *    mcp-http-endpoint.ts; no standalone SSE stream, so GET is 405;
 *  - the service's own routes, each optionally guarded before its method is checked;
 *  - a debug line per request, 500 on a handler that throws, and a close that ends live
 *    sessions and gives requests in flight a moment.
 * Security assumption: a tunnel in front of us forwards the public Host; we trust no
 * X-Forwarded-* header (the optional client-IP header keys throttling only).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  createBoundedServer,
  createHostPolicy,
  DEFAULT_MAX_BODY_BYTES,
  hostForUrl,
  isAllowedHost,
  isAllowedOrigin,
  isLoopbackBindAddress,
  jsonRpcError,
  listenOnLoopback,
  parseHostHeader,
  sendJson,
  type HttpLimits,
  type PublicHost,
} from '@terminal-mcp/http-guard';
import {
  isOwnConsentFormWithNullOrigin,
  oauthRoutes,
  oauthUrls,
  pathOf,
  refusalPage,
  registrationLimits,
  type OAuthBroker,
  type OAuthResourceProfile,
  type OAuthUrls,
} from '@terminal-mcp/oauth-http';
import type { Logger } from 'pino';
import { handleMcpDelete, handleMcpPost, type McpCaller, type McpEndpointDeps, type McpLiveSession, type RefusalReason } from './mcp-http-endpoint.js';
import { createMcpSessionTable } from './mcp-sessions.js';

/** The bodies of the plain-JSON errors outside /mcp, in the service's own vocabulary. */
export interface HttpErrorBodies {
  notFound: unknown;
  methodNotAllowed: unknown;
  internal: unknown;
  /** A refusal (Host, Origin, a missing credential) of a request outside /mcp. */
  refused(message: string): unknown;
}

export type RouteHandler<A> = (req: IncomingMessage, res: ServerResponse, caller: A | undefined) => Promise<void> | void;

export interface ServiceRoute<A> {
  /** Runs before the method is checked. `'mcp'`: authenticated as /mcp is (the handler
   * gets the caller); a function answers a refused request itself and returns false. */
  guard?: 'mcp' | ((req: IncomingMessage, res: ServerResponse) => boolean);
  /** By method; HEAD falls back to GET. */
  methods: Partial<Record<string, RouteHandler<A>>>;
}

/** The service once bound: what its handlers may depend on (the port, when 0 was asked). */
export interface BoundMcpHttpService {
  host: string;
  port: number;
  /** `http://<bind host>:<port>` */
  base: string;
  /** With OAuth on: the URLs its metadata announces (issuer = the public URL, else this
   * machine's loopback origin). */
  urls: OAuthUrls | undefined;
  /** Logs the refusal's facts, counts it and answers (the consent page's own refusal on
   * /authorize, JSON-RPC on /mcp, `errors.refused` elsewhere). */
  refuse(req: IncomingMessage, res: ServerResponse, status: number, reason: RefusalReason, message: string, headers?: Record<string, string>): void;
}

export interface McpHttpServiceHandlers<A extends McpCaller> {
  /** Who the request is; answers a refused one itself (401/403/503) and returns undefined. */
  authenticate(req: IncomingMessage, res: ServerResponse): Promise<A | undefined>;
  /** One McpServer per transport (a live session, or one stateless request), for
   * `caller`; `latest()` is the caller as its most recent request presented itself (the
   * same principal; a refreshed OAuth credential). */
  createServer(caller: A, latest: () => A): McpServer | Promise<McpServer>;
  routes?: Readonly<Record<string, ServiceRoute<A>>>;
  /** Routes for every path below a prefix (`/api/v1/`): the handler reads the rest. */
  prefixRoutes?: Readonly<Record<string, ServiceRoute<A>>>;
}

export interface McpHttpServiceOptions<A extends McpCaller> {
  /** Loopback only; anything else is refused with `configError`. */
  host: string;
  /** 0 picks a free port. */
  port: number;
  /** Builds the service's refusal to start (its binary exits 2 on these). */
  configError: (message: string) => Error;
  /** Ends the refusal of a non-loopback host: how to reach the service remotely. */
  remoteAdvice: string;
  /** e.g. `the gateway`, in that refusal. */
  serviceName: string;
  /** The tunnel's https origin, already validated. Its host is accepted in Host/Origin. */
  publicUrl?: string;
  /** More tunnel host names accepted in Host/Origin besides the loopback names. */
  publicHosts?: readonly PublicHost[];
  /** Mounts the OAuth authorization server when set. */
  oauth?: {
    broker: OAuthBroker;
    profile: OAuthResourceProfile;
    brokerTimeoutMs: number;
    clientIpHeader?: string | undefined;
    /** Registrations accepted per minute per source and in total (defaults 10 and 120). */
    registrationLimits?: { perSource?: number; total?: number } | undefined;
  };
  /** Keep an McpServer per initialized client (see mcp-http-endpoint.ts); default off. */
  liveSessions?: boolean | { max?: number; idleMs?: number };
  httpLimits?: Partial<HttpLimits> | undefined;
  maxBodyBytes?: number | undefined;
  log: Logger;
  errors: HttpErrorBodies;
  observeRejection?: (reason: RefusalReason) => void;
  /** Called once the port is bound. */
  handlers(bound: BoundMcpHttpService): McpHttpServiceHandlers<A>;
}

export interface RunningMcpHttpService {
  host: string;
  port: number;
  base: string;
  urls: OAuthUrls | undefined;
  close(): Promise<void>;
}

/** The first refusal of a service: not a loopback host. */
export function requireLoopbackHost(host: string, serviceName: string, remoteAdvice: string, configError: (message: string) => Error): void {
  if (!isLoopbackBindAddress(host)) {
    throw configError(`refusing to listen on ${host}: ${serviceName} binds loopback only (127.0.0.0/8, ::1, localhost). ${remoteAdvice}`);
  }
}

export async function createMcpHttpService<A extends McpCaller>(options: McpHttpServiceOptions<A>): Promise<RunningMcpHttpService> {
  const { host, log, errors } = options;
  requireLoopbackHost(host, options.serviceName, options.remoteAdvice, options.configError);
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const liveSessions = options.liveSessions === true ? {} : options.liveSessions || undefined;
  const sessions = liveSessions ? createMcpSessionTable<McpLiveSession>(liveSessions) : undefined;

  // Bind first: the OAuth URLs and the host policy depend on the port (0 picks one). The
  // request listener is attached in the same tick as the bind completes, before any
  // connection can be read. `localhost` resolves through the system resolver:
  // listenOnLoopback checks what we really bound.
  const server = createBoundedServer(options.httpLimits);
  const address = await listenOnLoopback(server, host, options.port, options.configError);
  const base = `http://${hostForUrl(host)}:${address.port}`;
  const urls = options.oauth ? oauthUrls(options.publicUrl ?? `http://${hostForUrl(host === 'localhost' ? '127.0.0.1' : host)}:${address.port}`) : undefined;
  const hosts: PublicHost[] = [...(options.publicHosts ?? [])];
  // A loopback public URL is already covered (with our port); a tunnel name may arrive
  // with any port, the tunnel decides.
  const publicHost = options.publicUrl ? parseHostHeader(new URL(options.publicUrl).host) : undefined;
  if (publicHost && !publicHost.hostname.startsWith('[') && !isLoopbackBindAddress(publicHost.hostname)) hosts.push({ hostname: publicHost.hostname });
  const policy = createHostPolicy({ port: address.port, bindHost: host, publicHosts: hosts });
  const oauth = options.oauth;
  const oauthTable = urls && oauth
    ? oauthRoutes({ broker: oauth.broker, urls, profile: oauth.profile, log, brokerTimeoutMs: oauth.brokerTimeoutMs, clientIpHeader: oauth.clientIpHeader, registrations: registrationLimits(oauth.registrationLimits) })
    : {};

  const refuse: BoundMcpHttpService['refuse'] = (req, res, status, reason, message, headers = {}) => {
    options.observeRejection?.(reason);
    // The facts of the refusal (capped: the values are the attacker's), never bodies or tokens.
    const cap = (v: string | undefined) => v?.slice(0, 200);
    const path = pathOf(req);
    log.warn({ event: 'security.http_refused', reason, status, method: req.method, path: cap(path), host: cap(req.headers.host), origin: cap(req.headers.origin) }, 'HTTP request refused');
    if (path === '/authorize' && urls && (reason === 'host' || reason === 'origin')) return refusalPage(res, status, reason);
    sendJson(res, status, path === '/mcp' ? jsonRpcError(message) : errors.refused(message), headers);
  };

  const handlers = options.handlers({ host, port: address.port, base, urls, refuse });
  const routes = handlers.routes ?? {};
  const prefixRoutes = Object.entries(handlers.prefixRoutes ?? {});
  const routeFor = (path: string): ServiceRoute<A> | undefined => routes[path] ?? prefixRoutes.find(([prefix]) => path.startsWith(prefix))?.[1];
  const endpoint: McpEndpointDeps<A> = {
    log,
    maxBodyBytes,
    sessions,
    createServer: (caller, latest) => handlers.createServer(caller, latest),
    ...(options.observeRejection ? { observeRejection: options.observeRejection } : {}),
  };
  const mcpMethods = sessions ? ['POST', 'DELETE'] : ['POST'];

  const serveMcp = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const caller = await handlers.authenticate(req, res);
    if (caller === undefined) return;
    if (req.method === 'POST') return handleMcpPost(req, res, endpoint, caller);
    if (req.method === 'DELETE' && sessions) return handleMcpDelete(req, res, { ...endpoint, sessions }, caller);
    // No standalone SSE stream (GET): every answer is one JSON body.
    const why = sessions ? 'this server offers no SSE stream; use POST (and DELETE to end a session)' : 'this server is stateless; use POST';
    sendJson(res, 405, jsonRpcError(`Method not allowed: ${why}`), { Allow: mcpMethods.join(', ') });
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (!isAllowedHost(req.headers.host, policy)) return refuse(req, res, 403, 'host', 'Forbidden: Host header not allowed');
    if (!isAllowedOrigin(req.headers.origin, policy) && !(urls && isOwnConsentFormWithNullOrigin(req))) {
      return refuse(req, res, 403, 'origin', 'Forbidden: Origin not allowed');
    }
    const path = pathOf(req);
    if (path === '/mcp') return serveMcp(req, res);
    const oauthRoute = oauthTable[path];
    const route: ServiceRoute<A> | undefined = oauthRoute ? { methods: oauthRoute } : routeFor(path);
    if (!route) return sendJson(res, 404, errors.notFound);
    let caller: A | undefined;
    if (route.guard === 'mcp') {
      caller = await handlers.authenticate(req, res);
      if (caller === undefined) return;
    } else if (route.guard && !route.guard(req, res)) {
      return;
    }
    const method = req.method ?? '';
    const handler = route.methods[method] ?? (method === 'HEAD' ? route.methods.GET : undefined);
    if (!handler) {
      if (path === '/authorize') return refusalPage(res, 405, 'method');
      return sendJson(res, 405, errors.methodNotAllowed, { Allow: Object.keys(route.methods).join(', ') });
    }
    return handler(req, res, caller);
  };

  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const started = Date.now();
    res.on('finish', () => {
      log.debug({ event: 'http.request', method: req.method, path: pathOf(req).slice(0, 200), status: res.statusCode, ms: Date.now() - started }, 'request');
    });
    handle(req, res).catch((err: unknown) => {
      log.error({ event: 'http.handler_failed', err }, 'request handler failed');
      if (!res.headersSent) sendJson(res, 500, errors.internal);
      else res.destroy();
    });
  });

  let closing: Promise<void> | undefined;
  return {
    host,
    port: address.port,
    base,
    urls,
    close() {
      closing ??= new Promise<void>((resolve) => {
        sessions?.closeAll();
        server.close(() => resolve());
        server.closeIdleConnections();
        // Requests in flight get a moment to finish; then connections are cut.
        setTimeout(() => server.closeAllConnections(), 2_000).unref();
      });
      return closing;
    },
  };
}
