/** Observer settings from the environment. A setting that cannot be read stops the start
 * with a message naming the variable: a typo must not quietly widen exposure. */
import { isIP } from 'node:net';
import { isLoopbackBindAddress, parsePortSetting, parsePublicHostsSetting, type PublicHost } from '@terminal-mcp/http-guard';

export const DEFAULT_OBSERVER_HOST = '127.0.0.1';
export const DEFAULT_OBSERVER_PORT = 8767;

/** Refusals to start; the command exits with status 2 on these. */
export class ObserverConfigError extends Error {
  readonly code = 'OBSERVER_CONFIG';
  constructor(message: string) {
    super(message);
    this.name = 'ObserverConfigError';
  }
}

const refusal = (message: string) => new ObserverConfigError(message);

export interface ObserverHttpSettings {
  host: string;
  port: number;
  /** The origin clients reach us at (the tunnel's https URL); undefined means
   * `http://127.0.0.1:<port>`. The OAuth issuer and the resource URL derive from it. */
  publicUrl: string | undefined;
  publicHosts: PublicHost[];
  /** A header the tunnel sets to the real client address (e.g. cf-connecting-ip), used
   * only to key login throttling; undefined means the socket's address. */
  clientIpHeader: string | undefined;
}

/**
 * The public origin: `https://host[:port]` (or `http://` on a loopback host, for local
 * use), no path, query, fragment or user info — the authorization server and the MCP
 * resource live at its root. Returned without a trailing slash.
 */
export function readPublicUrl(raw: string | undefined, variable = 'TERMINAL_MCP_OBSERVER_PUBLIC_URL'): string | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new ObserverConfigError(`${variable}=${JSON.stringify(raw)} is not a URL`);
  }
  const loopback = isLoopbackBindAddress(url.hostname);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback)) {
    throw new ObserverConfigError(`${variable} must be an https:// URL (http:// only on a loopback host): OAuth tokens must not cross the internet in clear text`);
  }
  if (url.username || url.password || url.search || url.hash || (url.pathname !== '/' && url.pathname !== '')) {
    throw new ObserverConfigError(`${variable} must be an origin only, like https://observer.example.com (the observer serves at the root)`);
  }
  return url.origin;
}

export function readClientIpHeader(raw: string | undefined, variable = 'TERMINAL_MCP_OBSERVER_CLIENT_IP_HEADER'): string | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  const name = raw.trim().toLowerCase();
  if (!/^[a-z0-9-]{1,64}$/.test(name)) throw new ObserverConfigError(`${variable} must be one header name, like cf-connecting-ip`);
  return name;
}

export function observerSettingsFromEnv(env: NodeJS.ProcessEnv): ObserverHttpSettings {
  return {
    host: env.TERMINAL_MCP_OBSERVER_HOST?.trim() || DEFAULT_OBSERVER_HOST,
    port: parsePortSetting(env.TERMINAL_MCP_OBSERVER_PORT, 'TERMINAL_MCP_OBSERVER_PORT', DEFAULT_OBSERVER_PORT, refusal),
    publicUrl: readPublicUrl(env.TERMINAL_MCP_OBSERVER_PUBLIC_URL),
    publicHosts: parsePublicHostsSetting(env.TERMINAL_MCP_PUBLIC_HOSTS, 'TERMINAL_MCP_PUBLIC_HOSTS', refusal),
    clientIpHeader: readClientIpHeader(env.TERMINAL_MCP_OBSERVER_CLIENT_IP_HEADER),
  };
}

/** The address login throttling is keyed on. Assumes the named header, when configured,
 * is set (overwritten) by the tunnel; a value that is not an IP address is ignored. */
export function clientAddress(socketAddress: string | undefined, headerValue: string | string[] | undefined): string {
  const fromHeader = Array.isArray(headerValue) ? headerValue[0] : headerValue;
  // A list-valued header: only the right-most entry was written by our tunnel; entries to
  // its left came from the client and could be rotated to dodge per-IP backoff.
  const candidate = fromHeader?.split(',').at(-1)?.trim();
  if (candidate && isIP(candidate) !== 0) return candidate;
  return (socketAddress ?? 'unknown').replace(/^::ffff:/, '');
}
