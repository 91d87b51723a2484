/**
 * The observer's HTTP service: plain node:http, loopback only. Every request passes the
 * same gate first — Host, then Origin — then the routing table below. The OAuth
 * authorization server lives at the ROOT of the same origin as the MCP endpoint (hosted
 * clients call /authorize, /token, /register there). Security assumptions: a tunnel in
 * front of us forwards the public Host and terminates TLS; we trust no X-Forwarded-*
 * header (the one optional exception is a configured client-IP header, used only to key
 * login throttling).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createBrokerClient, type BrokerClient } from '@terminal-mcp/broker-client';
import {
  createBoundedServer,
  createHostPolicy,
  DEFAULT_MAX_BODY_BYTES,
  hostForUrl,
  type HttpLimits,
  isAllowedHost,
  isAllowedOrigin,
  isLoopbackBindAddress,
  jsonRpcError,
  listenOnLoopback,
  parseHostHeader,
  type PublicHost,
  sendJson,
} from '@terminal-mcp/http-guard';
import {
  callBroker,
  isOwnConsentFormWithNullOrigin,
  oauthRoutes,
  oauthUrls,
  pathOf,
  refusalPage,
  registrationLimits,
  type Handler,
  type OAuthUrls,
} from '@terminal-mcp/oauth-http';
import type { Logger } from 'pino';
import { currentActor } from '../actor.js';
import { createObserverLogger } from '../logger.js';
import { DEFAULT_BROKER_TIMEOUT_MS } from '../server.js';
import { authenticate, handleMcpPost, type McpEndpointDeps } from './mcp-endpoint.js';
import { DEFAULT_OBSERVER_HOST, DEFAULT_OBSERVER_PORT, ObserverConfigError, readPublicUrl } from './options.js';
import { OBSERVER_OAUTH_PROFILE } from './profile.js';

export interface ObserverHttpOptions {
  /** Loopback only; anything else is refused with ObserverConfigError. Default 127.0.0.1. */
  host?: string;
  /** Default 8767; 0 picks a free port (see `port` on the result). */
  port?: number;
  /** The public origin (tunnel URL), e.g. https://observer.example.com. Default
   * `http://127.0.0.1:<port>`. Its host is accepted in Host/Origin automatically. */
  publicUrl?: string;
  /** More tunnel host names accepted in Host/Origin besides the loopback names. */
  publicHosts?: readonly PublicHost[];
  /** See ObserverHttpSettings.clientIpHeader. */
  clientIpHeader?: string;
  /** Defaults to a client on `<socket dir>/observer.sock` from `env`. */
  broker?: BrokerClient<'observer'>;
  env?: NodeJS.ProcessEnv;
  log?: Logger;
  maxBodyBytes?: number;
  brokerTimeoutMs?: number;
  /** Connection bounds (see @terminal-mcp/http-guard); tests shorten them. */
  httpLimits?: Partial<HttpLimits>;
  /** Registrations accepted per minute per source and in total (defaults 10 and 120). */
  registrationLimits?: { perSource?: number; total?: number };
}

export interface RunningObserverHttp {
  host: string;
  port: number;
  /** The public origin the OAuth metadata announces. */
  publicUrl: string;
  /** `<public url>/mcp`: the URL to give an MCP client, and every token's audience. */
  mcpUrl: string;
  urls: OAuthUrls;
  close(): Promise<void>;
}

export async function startObserverHttp(options: ObserverHttpOptions = {}): Promise<RunningObserverHttp> {
  const host = options.host ?? DEFAULT_OBSERVER_HOST;
  const requestedPort = options.port ?? DEFAULT_OBSERVER_PORT;
  if (!isLoopbackBindAddress(host)) {
    throw new ObserverConfigError(
      `refusing to listen on ${host}: the observer binds loopback only (127.0.0.0/8, ::1, localhost). ` +
        'Reach it remotely through an HTTPS tunnel and set TERMINAL_MCP_OBSERVER_PUBLIC_URL.',
    );
  }
  const log = options.log ?? createObserverLogger();
  const broker = options.broker ?? createBrokerClient({ role: 'observer', env: options.env ?? process.env, actor: currentActor });
  const brokerTimeoutMs = options.brokerTimeoutMs ?? DEFAULT_BROKER_TIMEOUT_MS;
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const configuredPublicUrl = readPublicUrl(options.publicUrl);

  // Bind first: the public URL, the host policy and every endpoint depend on the port
  // (0 picks one). The request listener is attached in the same tick as the bind
  // completes, before any connection can be read.
  const server = createBoundedServer(options.httpLimits);
  const address = await listenOnLoopback(server, host, requestedPort, (message) => new ObserverConfigError(message));
  const publicUrl = configuredPublicUrl ?? `http://${hostForUrl(host === 'localhost' ? '127.0.0.1' : host)}:${address.port}`;
  const urls = oauthUrls(publicUrl);
  const publicHost = parseHostHeader(new URL(publicUrl).host);
  const hosts: PublicHost[] = [...(options.publicHosts ?? [])];
  // A loopback public URL is already covered (with our port); a tunnel name may arrive
  // with any port, the tunnel decides.
  if (publicHost && !publicHost.hostname.startsWith('[') && !isLoopbackBindAddress(publicHost.hostname)) hosts.push({ hostname: publicHost.hostname });
  const policy = createHostPolicy({ port: address.port, bindHost: host, publicHosts: hosts });

  const profile = OBSERVER_OAUTH_PROFILE;
  const mcpDeps: McpEndpointDeps = { broker, urls, profile, log, brokerTimeoutMs, maxBodyBytes };

  const refuse = (req: IncomingMessage, res: ServerResponse, status: number, reason: string, message: string) => {
    const cap = (v: string | undefined) => v?.slice(0, 200);
    log.warn(
      { event: 'security.http_refused', reason, status, method: req.method, path: cap(pathOf(req)), host: cap(req.headers.host), origin: cap(req.headers.origin) },
      'HTTP request refused',
    );
    const path = pathOf(req);
    if (path === '/authorize') return refusalPage(res, status, reason === 'host' ? 'host' : 'origin');
    sendJson(res, status, path === '/mcp' ? jsonRpcError(message) : { error: 'forbidden', error_description: message });
  };

  const json = (body: unknown): Handler => (_req, res) => sendJson(res, 200, body);

  const ROUTES: Record<string, Partial<Record<string, Handler>>> = {
    ...oauthRoutes({ broker: broker.oauth, urls, profile, log, brokerTimeoutMs, clientIpHeader: options.clientIpHeader, registrations: registrationLimits(options.registrationLimits) }),
    '/health/live': { GET: json({ ok: true }) },
    '/health/ready': {
      // Internet-facing: a yes/no only, no details about tmux or stores.
      GET: async (_req, res) => {
        const r = await callBroker((signal) => broker.health.ready.query(undefined, { signal }), 5_000);
        const ready = r.ok && r.value.ready;
        sendJson(res, ready ? 200 : 503, { ready });
      },
    },
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (!isAllowedHost(req.headers.host, policy)) return refuse(req, res, 403, 'host', 'Forbidden: Host header not allowed');
    if (!isAllowedOrigin(req.headers.origin, policy) && !isOwnConsentFormWithNullOrigin(req)) return refuse(req, res, 403, 'origin', 'Forbidden: Origin not allowed');
    const path = pathOf(req);
    const method = req.method === 'HEAD' ? 'GET' : (req.method ?? '');

    if (path === '/mcp') {
      // Authenticate before anything else, so an unauthenticated client of any method
      // learns where to get a token.
      const auth = await authenticate(req, res, mcpDeps);
      if (!auth.ok) return;
      if (method !== 'POST') {
        // Stateless: no standalone SSE stream (GET), no session to delete (DELETE).
        sendJson(res, 405, jsonRpcError('Method not allowed: this server is stateless; use POST'), { Allow: 'POST' });
        return;
      }
      return handleMcpPost(req, res, auth.caller, mcpDeps);
    }
    const route = ROUTES[path];
    if (!route) return sendJson(res, 404, { error: 'not_found' });
    const handler = route[method];
    if (!handler) {
      if (path === '/authorize') return refusalPage(res, 405, 'method');
      return sendJson(res, 405, { error: 'method_not_allowed' }, { Allow: Object.keys(route).join(', ') });
    }
    return handler(req, res);
  };

  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const started = Date.now();
    res.on('finish', () => {
      log.debug({ event: 'http.request', method: req.method, path: pathOf(req).slice(0, 200), status: res.statusCode, ms: Date.now() - started }, 'request');
    });
    Promise.resolve(handle(req, res)).catch((err: unknown) => {
      log.error({ event: 'http.handler_failed', err }, 'request handler failed');
      if (!res.headersSent) sendJson(res, 500, { error: 'server_error' });
      else res.destroy();
    });
  });

  let closing: Promise<void> | undefined;
  return {
    host,
    port: address.port,
    publicUrl: urls.issuer,
    mcpUrl: urls.resource,
    urls,
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
        setTimeout(() => server.closeAllConnections(), 2_000).unref();
      });
      return closing;
    },
  };
}
