/**
 * The HTTP gateway: plain node:http, loopback only, with bounded connections. Every
 * request passes the same gate first — Host, then Origin — and the MCP and metrics
 * endpoints then need authentication (once per request, here, before routing):
 *  - without a public URL, the optional static bearer token (TERMINAL_MCP_GATEWAY_TOKEN),
 *    exactly as before;
 *  - with TERMINAL_MCP_GATEWAY_PUBLIC_URL (a tunnel, e.g. for ChatGPT), OAuth 2.1: the
 *    gateway serves its own authorization server at the root of that origin
 *    (@terminal-mcp/oauth-http, the broker's gateway.sock keeps the state) and /mcp needs
 *    an access token for `<public url>/mcp`. The static token still works for scripts, but
 *    only on a loopback Host (a request through the tunnel names the public host).
 * Security assumption: a tunnel in front of us forwards the public Host; we trust no
 * X-Forwarded-* header (the optional client-IP header keys throttling only).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createBrokerClient, type BrokerClient } from '@terminal-mcp/broker-client';
import {
  bearerTokenMatches,
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
  sendText,
  type HttpLimits,
  type PublicHost,
  sendJson,
  wwwAuthenticate,
} from '@terminal-mcp/http-guard';
import {
  authenticateBearer,
  isOwnConsentFormWithNullOrigin,
  oauthRoutes,
  oauthUrls,
  pathOf,
  readPublicUrl,
  refusalPage,
  registrationLimits,
  type OAuthUrls,
  type RouteTable,
} from '@terminal-mcp/oauth-http';
import type { Logger } from 'pino';
import { createGatewayLogger } from '../logger.js';
import { createToolMetrics, type RejectionReason, type ToolMetrics } from '../metrics.js';
import { DEFAULT_BROKER_TIMEOUT_MS } from '../server.js';
import { versionInfo } from '../version.js';
import { sendLive, sendMetrics, sendReady, sendVersion } from './health.js';
import { gatewayDocs } from '../instance-docs.js';
import { handleMcpDelete, handleMcpPost, type McpHttpSession } from './mcp-endpoint.js';
import { createMcpSessionTable, principalKey } from './mcp-sessions.js';
import { GATEWAY_OAUTH_PROFILE } from './oauth-profile.js';
import { gatewayCatalogue } from '../catalogue.js';
import { brokerToolsetConfig } from '../toolset-config.js';
import { toolsetsForCaller } from '@terminal-mcp/contract';
import { DEFAULT_GATEWAY_HOST, DEFAULT_GATEWAY_PORT, GatewayConfigError } from './options.js';

export interface GatewayHttpOptions {
  /** Loopback only; anything else is refused with GatewayConfigError. Default 127.0.0.1. */
  host?: string;
  /** Default 8766; 0 picks a free port (see `port` on the result). */
  port?: number;
  /** Tunnel host names accepted in Host/Origin besides the loopback names. */
  publicHosts?: readonly PublicHost[];
  /** When set, /mcp and /health/metrics need `Authorization: Bearer <token>` (with OAuth
   * on: on a loopback Host only, see above). */
  token?: string;
  /** The tunnel's https origin: turns on OAuth for /mcp. */
  publicUrl?: string;
  /** OAuth without a tunnel, announced at `http://<bind host>:<port>` (local trials, tests). */
  oauth?: boolean;
  /** Start without a token and without OAuth: every local user (any process on this
   * machine) can then read and type through /mcp. Refused unless set: loopback is not a
   * boundary on a shared machine. */
  allowOpen?: boolean;
  /** See GatewayHttpSettings.clientIpHeader. */
  clientIpHeader?: string;
  /** Registrations accepted per minute per source and in total (defaults 10 and 120). */
  registrationLimits?: { perSource?: number; total?: number };
  /** Connection bounds (see @terminal-mcp/http-guard); tests shorten them. */
  httpLimits?: Partial<HttpLimits>;
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
  /** With OAuth on: the URLs its metadata announces (issuer = public URL). */
  oauth?: OAuthUrls;
  /** How /mcp is protected: OAuth (the static token too, on a loopback Host, when set),
   * the static bearer token, or nothing (`allowOpen`). */
  protection: GatewayProtection;
  metrics: ToolMetrics;
  close(): Promise<void>;
}

export type GatewayProtection = 'oauth' | 'token' | 'open';

type Route = 'mcp' | 'api-doc' | 'skill-doc' | 'live' | 'ready' | 'metrics' | 'version';

const ROUTES: Record<string, { route: Route; methods: readonly string[]; needsToken: boolean }> = {
  // DELETE ends the caller's live session (mcp-endpoint.ts handleMcpDelete).
  '/mcp': { route: 'mcp', methods: ['POST', 'DELETE'], needsToken: true },
  // The instance's docs, generated from the tools the caller may use: same gate as /mcp.
  '/api.md': { route: 'api-doc', methods: ['GET', 'HEAD'], needsToken: true },
  '/skills.md': { route: 'skill-doc', methods: ['GET', 'HEAD'], needsToken: true },
  '/health/live': { route: 'live', methods: ['GET', 'HEAD'], needsToken: false },
  '/health/ready': { route: 'ready', methods: ['GET', 'HEAD'], needsToken: false },
  '/health/metrics': { route: 'metrics', methods: ['GET', 'HEAD'], needsToken: true },
  '/version': { route: 'version', methods: ['GET', 'HEAD'], needsToken: false },
};

/** A request addressed to a loopback name (not through the tunnel, which forwards the
 * public Host). */
function viaLoopbackHost(req: IncomingMessage): boolean {
  const parts = parseHostHeader(req.headers.host ?? '');
  return parts !== undefined && isLoopbackBindAddress(parts.hostname.replace(/^\[|\]$/g, ''));
}

/** `principal`: who the request acts as, which binds MCP sessions (mcp-sessions.ts). */
type McpAuth = { ok: true; principal: string; scopes?: readonly string[]; clientId?: string; credential?: string; brokerPrincipal?: 'token' | 'anonymous' } | { ok: false };

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
  const brokerTimeoutMs = options.brokerTimeoutMs ?? DEFAULT_BROKER_TIMEOUT_MS;
  const configuredPublicUrl = readPublicUrl(options.publicUrl, 'TERMINAL_MCP_GATEWAY_PUBLIC_URL', (m) => new GatewayConfigError(m));
  const oauthOn = configuredPublicUrl !== undefined || options.oauth === true;
  if (!oauthOn && token === undefined && options.allowOpen !== true) {
    throw new GatewayConfigError(
      'refusing to start without a token or OAuth: every local user could read and type through the gateway (loopback is no boundary on a shared machine). ' +
        'Set TERMINAL_MCP_GATEWAY_TOKEN (npm start makes one at first start: terminal-mcp client-config http shows it), or TERMINAL_MCP_GATEWAY_PUBLIC_URL for OAuth, ' +
        'or TERMINAL_MCP_GATEWAY_ALLOW_OPEN=1 to accept an open gateway.',
    );
  }
  const protection: GatewayProtection = oauthOn ? 'oauth' : token !== undefined ? 'token' : 'open';
  const version = versionInfo();
  const sessions = createMcpSessionTable<McpHttpSession>();
  const toolsetConfig = brokerToolsetConfig(broker);

  // Bind first: the OAuth URLs and the host policy depend on the port (0 picks one). The
  // request listener is attached in the same tick as the bind completes.
  // `localhost` resolves through the system resolver: listenOnLoopback checks what we really bound.
  const server = createBoundedServer(options.httpLimits);
  const address = await listenOnLoopback(server, host, requestedPort, (message) => new GatewayConfigError(message));
  const base = `http://${hostForUrl(host)}:${address.port}`;
  const mcpUrl = configuredPublicUrl ? `${configuredPublicUrl.replace(/\/$/, '')}/mcp` : `${base}/mcp`;
  const serverDeps = { broker, metrics, log, brokerTimeoutMs, mcpUrl };
  const urls = oauthOn ? oauthUrls(configuredPublicUrl ?? `http://${hostForUrl(host === 'localhost' ? '127.0.0.1' : host)}:${address.port}`) : undefined;
  const hosts: PublicHost[] = [...(options.publicHosts ?? [])];
  const publicHost = configuredPublicUrl ? parseHostHeader(new URL(configuredPublicUrl).host) : undefined;
  if (publicHost && !publicHost.hostname.startsWith('[') && !isLoopbackBindAddress(publicHost.hostname)) hosts.push({ hostname: publicHost.hostname });
  const policy = createHostPolicy({ port: address.port, bindHost: host, publicHosts: hosts });
  const profile = GATEWAY_OAUTH_PROFILE;
  const oauthTable: RouteTable = urls
    ? oauthRoutes({ broker: broker.oauth, urls, profile, log, brokerTimeoutMs, clientIpHeader: options.clientIpHeader, registrations: registrationLimits(options.registrationLimits) })
    : {};

  const reject = (req: IncomingMessage, res: ServerResponse, status: number, reason: RejectionReason, message: string, headers: Record<string, string> = {}) => {
    metrics.observeRejection(reason);
    // The facts of the refusal (capped: the values are the attacker's), never bodies or tokens.
    const cap = (v: string | undefined) => v?.slice(0, 200);
    log.warn(
      { event: 'security.http_refused', reason, status, method: req.method, path: cap(pathOf(req)), host: cap(req.headers.host), origin: cap(req.headers.origin) },
      'HTTP request refused',
    );
    const path = pathOf(req);
    if (path === '/authorize' && oauthOn && (reason === 'host' || reason === 'origin')) return refusalPage(res, status, reason);
    const body = path === '/mcp' ? jsonRpcError(message) : { error: message };
    sendJson(res, status, body, headers);
  };

  /** Details (broker readiness, commit, metrics) for the token holder; without a token,
   * for loopback callers unless the gateway faces a tunnel. */
  const detailsAllowed = (req: IncomingMessage): boolean =>
    token ? bearerTokenMatches(req.headers.authorization, token) : !oauthOn || viaLoopbackHost(req);

  const authorizeMcp = async (req: IncomingMessage, res: ServerResponse): Promise<McpAuth> => {
    if (!urls) {
      if (token && !bearerTokenMatches(req.headers.authorization, token)) {
        reject(req, res, 401, 'token', 'Unauthorized: a valid bearer token is required', { 'WWW-Authenticate': wwwAuthenticate(req.headers.authorization !== undefined) });
        return { ok: false };
      }
      return { ok: true, principal: principalKey({ staticToken: token !== undefined }), brokerPrincipal: token !== undefined ? 'token' : 'anonymous' };
    }
    // Scripts on this machine keep the static token; the tunnel's callers need OAuth.
    if (token && viaLoopbackHost(req) && bearerTokenMatches(req.headers.authorization, token)) return { ok: true, principal: principalKey({ staticToken: true }), brokerPrincipal: 'token' };
    const auth = await authenticateBearer(req, res, { broker: broker.oauth, urls, profile, log, brokerTimeoutMs });
    if (!auth.ok) {
      metrics.observeRejection('token');
      return { ok: false };
    }
    const { user, clientId, scopes } = auth.verified;
    return { ok: true, principal: principalKey({ oauth: { userId: user.id, clientId, scopes } }), scopes, clientId, credential: auth.accessToken };
  };

  /** The tools this request's caller is served: the operator's toolsets for its kind (or
   * its OAuth client), narrowed by its token's scopes (catalogue.ts). */
  const catalogueFor = async (auth: Extract<McpAuth, { ok: true }>) => {
    const caller = auth.scopes ? { kind: 'oauth' as const, ...(auth.clientId !== undefined ? { clientId: auth.clientId } : {}) } : { kind: 'http' as const };
    return gatewayCatalogue({ toolsets: toolsetsForCaller(await toolsetConfig.current(), caller), ...(auth.scopes ? { scopes: auth.scopes } : {}) });
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (!isAllowedHost(req.headers.host, policy)) {
      reject(req, res, 403, 'host', 'Forbidden: Host header not allowed');
      return;
    }
    if (!isAllowedOrigin(req.headers.origin, policy) && !(oauthOn && isOwnConsentFormWithNullOrigin(req))) {
      reject(req, res, 403, 'origin', 'Forbidden: Origin not allowed');
      return;
    }
    const path = pathOf(req);
    const oauthRoute = oauthTable[path];
    if (oauthRoute) {
      const handler = oauthRoute[req.method === 'HEAD' ? 'GET' : (req.method ?? '')];
      if (handler) return handler(req, res);
      if (path === '/authorize') return refusalPage(res, 405, 'method');
      sendJson(res, 405, { error: 'method not allowed' }, { Allow: Object.keys(oauthRoute).join(', ') });
      return;
    }
    const entry = ROUTES[path];
    if (!entry) {
      sendJson(res, 404, { error: 'not found' });
      return;
    }
    let auth: McpAuth = { ok: true, principal: principalKey({}) };
    if (entry.route === 'mcp' || entry.route === 'api-doc' || entry.route === 'skill-doc') {
      auth = await authorizeMcp(req, res);
      if (!auth.ok) return;
    } else if (entry.needsToken && !detailsAllowed(req)) {
      reject(req, res, 401, 'token', 'Unauthorized: a valid bearer token is required', { 'WWW-Authenticate': wwwAuthenticate(req.headers.authorization !== undefined) });
      return;
    }
    if (!entry.methods.includes(req.method ?? '')) {
      // No standalone SSE stream (GET): every answer is one JSON body.
      const body = entry.route === 'mcp' ? jsonRpcError('Method not allowed: this server offers no SSE stream; use POST (and DELETE to end a session)') : { error: 'method not allowed' };
      sendJson(res, 405, body, { Allow: entry.methods.join(', ') });
      return;
    }
    switch (entry.route) {
      case 'api-doc':
      case 'skill-doc': {
        const docs = gatewayDocs((await catalogueFor(auth)).tools, mcpUrl);
        return sendText(res, 200, entry.route === 'api-doc' ? docs.api : docs.skills, 'text/markdown; charset=utf-8');
      }
      case 'mcp': {
        const caller = {
          principal: auth.principal,
          ...(auth.credential !== undefined ? { credential: auth.credential } : {}),
          ...(auth.brokerPrincipal !== undefined ? { brokerPrincipal: auth.brokerPrincipal } : {}),
        };
        const mcpDeps = { serverDeps: { ...serverDeps, catalogue: await catalogueFor(auth) }, metrics, log, maxBodyBytes, sessions };
        return req.method === 'DELETE' ? handleMcpDelete(req, res, mcpDeps, caller) : handleMcpPost(req, res, mcpDeps, caller);
      }
      case 'live':
        return sendLive(res, protection);
      case 'ready':
        return sendReady(res, broker, log, detailsAllowed(req));
      case 'metrics':
        return sendMetrics(res, metrics);
      case 'version':
        return sendVersion(res, version, detailsAllowed(req));
    }
  };

  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const started = Date.now();
    res.on('finish', () => {
      log.debug({ event: 'http.request', method: req.method, path: pathOf(req).slice(0, 200), status: res.statusCode, ms: Date.now() - started }, 'request');
    });
    handle(req, res).catch((err: unknown) => {
      log.error({ event: 'http.handler_failed', err }, 'request handler failed');
      if (!res.headersSent) sendJson(res, 500, { error: 'internal error' });
      else res.destroy();
    });
  });

  let closing: Promise<void> | undefined;
  return {
    host,
    port: address.port,
    mcpUrl: `${base}/mcp`,
    healthUrl: `${base}/health/ready`,
    ...(urls ? { oauth: urls } : {}),
    protection,
    metrics,
    close() {
      closing ??= new Promise<void>((resolve) => {
        sessions.closeAll();
        server.close(() => resolve());
        server.closeIdleConnections();
        // Requests in flight get a moment to finish; then connections are cut.
        setTimeout(() => server.closeAllConnections(), 2_000).unref();
      });
      return closing;
    },
  };
}
