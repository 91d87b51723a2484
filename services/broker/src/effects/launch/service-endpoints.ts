/** The loopback URLs of the HTTP services, derived from the environment the same way
 * the services themselves read it (TERMINAL_MCP_<SERVICE>_HOST / _PORT), so `npm start`,
 * `terminal-mcp status` and `doctor` agree on where to look. */

export const HTTP_SERVICES = ['gateway', 'observer', 'web'] as const;
export type HttpService = (typeof HTTP_SERVICES)[number];

export interface ServiceEndpoint {
  service: HttpService;
  host: string;
  port: number;
  /** The user-facing URL (the MCP endpoint, or the dashboard). */
  url: string;
  /** Answers 200 when the service and everything behind it (broker, tmux) are ready. */
  readyUrl: string;
  /** Answers 200 while the service process serves, whatever the broker's state. */
  liveUrl: string;
}

const DEFAULT_PORTS: Record<HttpService, number> = { gateway: 8766, observer: 8767, web: 8768 };

function hostForUrl(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

export function serviceEndpoint(service: HttpService, env: NodeJS.ProcessEnv): ServiceEndpoint {
  const prefix = `TERMINAL_MCP_${service.toUpperCase()}`;
  const host = env[`${prefix}_HOST`] || '127.0.0.1';
  const port = Number(env[`${prefix}_PORT`] || DEFAULT_PORTS[service]);
  const base = `http://${hostForUrl(host)}:${port}`;
  if (service === 'web') return { service, host, port, url: `${base}/`, readyUrl: `${base}/login`, liveUrl: `${base}/login` };
  return { service, host, port, url: `${base}/mcp`, readyUrl: `${base}/health/ready`, liveUrl: `${base}/health/live` };
}

export function serviceEndpoints(env: NodeJS.ProcessEnv): ServiceEndpoint[] {
  return HTTP_SERVICES.map((s) => serviceEndpoint(s, env));
}
