/**
 * The observer's HTTP service: @terminal-mcp/mcp-kit's MCP HTTP service (loopback only,
 * Host then Origin on every request, the OAuth authorization server at the ROOT of the
 * same origin as the MCP endpoint: hosted clients call /authorize, /token, /register
 * there) configured with the observer's authentication and its read-only tools.
 * /mcp needs a bearer access token the broker accepts for this resource with the
 * observer:read scope (authenticateBearer answers 401 with the resource metadata URL
 * otherwise), then runs STATELESS Streamable HTTP: a fresh McpServer per request (hosted
 * clients do not reliably echo Mcp-Session-Id). Security assumptions: a tunnel in front
 * of us forwards the public Host and terminates TLS; we trust no X-Forwarded-* header
 * (the one optional exception is a configured client-IP header, used only to key login
 * throttling).
 */
import { createBrokerClient, type BrokerClient } from '@terminal-mcp/broker-client';
import { sendJson, type HttpLimits, type PublicHost } from '@terminal-mcp/http-guard';
import { createMcpHttpService, requireLoopbackHost, type RouteHandler } from '@terminal-mcp/mcp-kit';
import { authenticateBearer, callBroker, type OAuthUrls } from '@terminal-mcp/oauth-http';
import type { Logger } from 'pino';
import { createObserverLogger } from '../logger.js';
import { createObserverMcpServer, DEFAULT_BROKER_TIMEOUT_MS, type ObserverCaller } from '../server.js';
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

const OAUTH_STYLE_ERRORS = {
  notFound: { error: 'not_found' },
  methodNotAllowed: { error: 'method_not_allowed' },
  internal: { error: 'server_error' },
  refused: (message: string) => ({ error: 'forbidden', error_description: message }),
};

const REMOTE_ADVICE = 'Reach it remotely through an HTTPS tunnel and set TERMINAL_MCP_OBSERVER_PUBLIC_URL.';
const refusal = (message: string) => new ObserverConfigError(message);

export async function startObserverHttp(options: ObserverHttpOptions = {}): Promise<RunningObserverHttp> {
  const host = options.host ?? DEFAULT_OBSERVER_HOST;
  requireLoopbackHost(host, 'the observer', REMOTE_ADVICE, refusal);
  const log = options.log ?? createObserverLogger();
  const broker = options.broker ?? createBrokerClient({ role: 'observer', env: options.env ?? process.env });
  const brokerTimeoutMs = options.brokerTimeoutMs ?? DEFAULT_BROKER_TIMEOUT_MS;
  const publicUrl = readPublicUrl(options.publicUrl);
  const profile = OBSERVER_OAUTH_PROFILE;
  const json = (body: unknown): RouteHandler<unknown> => (_req, res) => sendJson(res, 200, body);

  const service = await createMcpHttpService<ObserverCaller & { principal: string }>({
    host,
    port: options.port ?? DEFAULT_OBSERVER_PORT,
    serviceName: 'the observer',
    remoteAdvice: REMOTE_ADVICE,
    configError: refusal,
    ...(publicUrl !== undefined ? { publicUrl } : {}),
    ...(options.publicHosts ? { publicHosts: options.publicHosts } : {}),
    oauth: { broker: broker.oauth, profile, brokerTimeoutMs, clientIpHeader: options.clientIpHeader, registrationLimits: options.registrationLimits },
    httpLimits: options.httpLimits,
    maxBodyBytes: options.maxBodyBytes,
    log,
    errors: OAUTH_STYLE_ERRORS,
    handlers: ({ urls }) => ({
      async authenticate(req, res) {
        const auth = await authenticateBearer(req, res, { broker: broker.oauth, urls: urls!, profile, log, brokerTimeoutMs });
        if (!auth.ok) return undefined;
        const { user, clientId } = auth.verified;
        // Stateless: the principal binds no session here; it names the caller for completeness.
        return { principal: `oauth:${user.id}:${clientId}`, username: user.username, clientId };
      },
      createServer: (caller) => createObserverMcpServer({ broker, caller: { username: caller.username, clientId: caller.clientId }, log, brokerTimeoutMs }),
      routes: {
        '/health/live': { methods: { GET: json({ ok: true }) } },
        '/health/ready': {
          methods: {
            // Internet-facing: a yes/no only, no details about tmux or stores.
            GET: async (_req, res) => {
              const r = await callBroker((signal) => broker.health.ready.query(undefined, { signal }), 5_000);
              const ready = r.ok && r.value.ready;
              sendJson(res, ready ? 200 : 503, { ready });
            },
          },
        },
      },
    }),
  });

  const urls = service.urls!;
  return {
    host,
    port: service.port,
    publicUrl: urls.issuer,
    mcpUrl: urls.resource,
    urls,
    close: () => service.close(),
  };
}
