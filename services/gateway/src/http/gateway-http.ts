/**
 * The HTTP gateway: @terminal-mcp/mcp-kit's MCP HTTP service (loopback only, bounded
 * connections, Host then Origin on every request, live MCP sessions with a stateless
 * fallback) configured with the gateway's authentication, tools and routes. The MCP,
 * docs and metrics endpoints need authentication:
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
import { createBrokerClient, type BrokerCaller, type BrokerClient } from '@terminal-mcp/broker-client';
import { toolsetsForCaller } from '@terminal-mcp/contract';
import { bearerTokenMatches, DEFAULT_MAX_BODY_BYTES, isLoopbackBindAddress, parseHostHeader, sendJson, sendText, wwwAuthenticate, type HttpLimits, type PublicHost } from '@terminal-mcp/http-guard';
import { createMcpHttpService, requireLoopbackHost, type RouteHandler } from '@terminal-mcp/mcp-kit';
import { authenticateBearer, readPublicUrl, type OAuthUrls } from '@terminal-mcp/oauth-http';
import type { Logger } from 'pino';
import { createCatalogues } from '../catalogue.js';
import { createDocsCache } from '../instance-docs.js';
import { createGatewayLogger } from '../logger.js';
import { createToolMetrics, type ToolMetrics } from '../metrics.js';
import { createGatewayMcpServer, DEFAULT_BROKER_TIMEOUT_MS, toolCallObserver } from '../server.js';
import { apiRoute } from './api/api-handler.js';
import { buildOpenApiDocument } from './api/openapi.js';
import { API_PREFIX } from './api/routes.js';
import { brokerToolsetConfig } from '../toolset-config.js';
import { versionInfo } from '../version.js';
import { sendLive, sendMetrics, sendReady, sendVersion } from './health.js';
import { GATEWAY_OAUTH_PROFILE } from './oauth-profile.js';
import { DEFAULT_GATEWAY_HOST, DEFAULT_GATEWAY_PORT, GatewayConfigError } from './options.js';
import { principalKey } from './principal.js';

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

/** A request addressed to a loopback name (not through the tunnel, which forwards the
 * public Host). */
function viaLoopbackHost(req: IncomingMessage): boolean {
  const parts = parseHostHeader(req.headers.host ?? '');
  return parts !== undefined && isLoopbackBindAddress(parts.hostname.replace(/^\[|\]$/g, ''));
}

/** Who the request acts as (`principal` binds live MCP sessions, principal.ts) and what
 * the broker is told: with OAuth the access token (the broker verifies it and takes
 * identity and scopes from it), else how the gateway let the request in (`token` or
 * `anonymous`), so the broker never takes identity from `clientInfo.name`. */
interface GatewayCaller {
  principal: string;
  scopes?: readonly string[];
  clientId?: string;
  credential?: string;
  brokerPrincipal?: 'token' | 'anonymous';
}

const PLAIN_ERRORS = {
  notFound: { error: 'not found' },
  methodNotAllowed: { error: 'method not allowed' },
  internal: { error: 'internal error' },
  refused: (message: string) => ({ error: message }),
};

const REMOTE_ADVICE = 'Reach it remotely through an authenticated HTTPS tunnel and list the tunnel host in TERMINAL_MCP_PUBLIC_HOSTS.';
const refusal = (message: string) => new GatewayConfigError(message);

/** GET and HEAD: the same answer (Node leaves the body out of a HEAD reply). */
const read = (handler: RouteHandler<GatewayCaller>) => ({ GET: handler, HEAD: handler });

export async function startGatewayHttp(options: GatewayHttpOptions = {}): Promise<RunningGatewayHttp> {
  const host = options.host ?? DEFAULT_GATEWAY_HOST;
  requireLoopbackHost(host, 'the gateway', REMOTE_ADVICE, refusal);
  const log = options.log ?? createGatewayLogger();
  const metrics = options.metrics ?? createToolMetrics();
  const broker = options.broker ?? createBrokerClient({ role: 'gateway', env: options.env ?? process.env });
  const token = options.token || undefined;
  const brokerTimeoutMs = options.brokerTimeoutMs ?? DEFAULT_BROKER_TIMEOUT_MS;
  const configuredPublicUrl = readPublicUrl(options.publicUrl, 'TERMINAL_MCP_GATEWAY_PUBLIC_URL', refusal);
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
  const toolsetConfig = brokerToolsetConfig(broker);
  const profile = GATEWAY_OAUTH_PROFILE;

  /** Details (broker readiness, commit, metrics) for the token holder; without a token,
   * for loopback callers unless the gateway faces a tunnel. */
  const detailsAllowed = (req: IncomingMessage): boolean =>
    token ? bearerTokenMatches(req.headers.authorization, token) : !oauthOn || viaLoopbackHost(req);

  /** The tools this request's caller is served: the operator's toolsets for its kind (or
   * its OAuth client), narrowed by its token's scopes (catalogue.ts). This gateway owns
   * the catalogues and the rendered docs its per-request servers share. */
  const catalogues = createCatalogues();
  const docsOf = createDocsCache();
  const catalogueFor = async (auth: GatewayCaller) => {
    const caller = auth.scopes ? { kind: 'oauth' as const, ...(auth.clientId !== undefined ? { clientId: auth.clientId } : {}) } : { kind: 'http' as const };
    return catalogues({ toolsets: toolsetsForCaller(await toolsetConfig.current(), caller), ...(auth.scopes ? { scopes: auth.scopes } : {}) });
  };

  /** What every broker call made for this caller (/mcp and the API) tells the broker:
   * the OAuth credential, else how the request was let in. */
  const brokerCaller = (caller: GatewayCaller): BrokerCaller =>
    caller.credential !== undefined ? { credential: caller.credential } : caller.brokerPrincipal !== undefined ? { principal: caller.brokerPrincipal } : {};
  const brokerFor = (caller: GatewayCaller) => broker.as(brokerCaller(caller));
  let openApi: Record<string, unknown> | undefined;

  const service = await createMcpHttpService<GatewayCaller>({
    host,
    port: options.port ?? DEFAULT_GATEWAY_PORT,
    serviceName: 'the gateway',
    remoteAdvice: REMOTE_ADVICE,
    configError: refusal,
    ...(configuredPublicUrl !== undefined ? { publicUrl: configuredPublicUrl } : {}),
    ...(options.publicHosts ? { publicHosts: options.publicHosts } : {}),
    ...(oauthOn ? { oauth: { broker: broker.oauth, profile, brokerTimeoutMs, clientIpHeader: options.clientIpHeader, registrationLimits: options.registrationLimits } } : {}),
    liveSessions: true,
    httpLimits: options.httpLimits,
    maxBodyBytes: options.maxBodyBytes,
    log,
    errors: PLAIN_ERRORS,
    observeRejection: (reason) => metrics.observeRejection(reason),
    handlers: ({ base, urls, refuse }) => {
      const mcpUrl = configuredPublicUrl ? `${configuredPublicUrl.replace(/\/$/, '')}/mcp` : `${base}/mcp`;
      const refuseToken = (req: IncomingMessage, res: ServerResponse) =>
        refuse(req, res, 401, 'token', 'Unauthorized: a valid bearer token is required', { 'WWW-Authenticate': wwwAuthenticate(req.headers.authorization !== undefined) });
      const docs = (which: 'api' | 'skills'): RouteHandler<GatewayCaller> => async (_req, res, caller) => {
        const served = docsOf((await catalogueFor(caller!)).tools, mcpUrl);
        sendText(res, 200, which === 'api' ? served.api : served.skills, 'text/markdown; charset=utf-8');
      };
      return {
        async authenticate(req, res) {
          if (!urls) {
            if (token && !bearerTokenMatches(req.headers.authorization, token)) return void refuseToken(req, res);
            return { principal: principalKey({ staticToken: token !== undefined }), brokerPrincipal: token !== undefined ? 'token' : 'anonymous' };
          }
          // Scripts on this machine keep the static token; the tunnel's callers need OAuth.
          if (token && viaLoopbackHost(req) && bearerTokenMatches(req.headers.authorization, token)) return { principal: principalKey({ staticToken: true }), brokerPrincipal: 'token' };
          const auth = await authenticateBearer(req, res, { broker: broker.oauth, urls, profile, log, brokerTimeoutMs });
          if (!auth.ok) {
            metrics.observeRejection('token');
            return undefined;
          }
          const { user, clientId, scopes } = auth.verified;
          return { principal: principalKey({ oauth: { userId: user.id, clientId, scopes } }), scopes, clientId, credential: auth.accessToken };
        },
        // A live session's later requests may carry a refreshed access token: the
        // server's client reads the latest one (same principal, checked by mcp-kit).
        createServer: async (caller, latest) =>
          createGatewayMcpServer({ broker: broker.as(() => brokerCaller(latest())), metrics, log, brokerTimeoutMs, mcpUrl, catalogue: await catalogueFor(caller), docs: docsOf }),
        routes: {
          // The scripts' API: its OpenAPI document, then every route of the operation table.
          [`${API_PREFIX}/openapi.json`]: { guard: 'mcp', methods: read((_req, res) => sendJson(res, 200, (openApi ??= buildOpenApiDocument()))) },
          // The instance's docs, generated from the tools the caller may use: same gate as /mcp.
          '/api.md': { guard: 'mcp', methods: read(docs('api')) },
          '/skills.md': { guard: 'mcp', methods: read(docs('skills')) },
          '/health/live': { methods: read((_req, res) => sendLive(res, protection)) },
          '/health/ready': { methods: read((req, res) => sendReady(res, broker, log, detailsAllowed(req))) },
          '/health/metrics': { guard: (req, res) => detailsAllowed(req) || (refuseToken(req, res), false), methods: read((_req, res) => sendMetrics(res, metrics)) },
          '/version': { methods: read((req, res) => sendVersion(res, version, detailsAllowed(req))) },
        },
        prefixRoutes: {
          [`${API_PREFIX}/`]: apiRoute<GatewayCaller>({ timeoutMs: brokerTimeoutMs, maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES, observer: toolCallObserver(metrics, log), catalogueFor, brokerFor }),
        },
      };
    },
  });

  return {
    host,
    port: service.port,
    mcpUrl: `${service.base}/mcp`,
    healthUrl: `${service.base}/health/ready`,
    ...(service.urls ? { oauth: service.urls } : {}),
    protection,
    metrics,
    close: () => service.close(),
  };
}
