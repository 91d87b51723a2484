/** Settings every OAuth edge reads the same way: its public origin and the optional
 * client-IP header of the tunnel in front of it. A value that cannot be read stops the
 * start (the caller's `refusal` builds its own config error): a typo must not quietly
 * widen exposure. */
import { isIP } from 'node:net';
import { isLoopbackBindAddress } from '@terminal-mcp/http-guard';

type Refusal = (message: string) => Error;

/**
 * The public origin: `https://host[:port]` (or `http://` on a loopback host, for local
 * use), no path, query, fragment or user info — the authorization server and the MCP
 * resource live at its root. Returned without a trailing slash.
 */
export function readPublicUrl(raw: string | undefined, variable: string, refusal: Refusal): string | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw refusal(`${variable}=${JSON.stringify(raw)} is not a URL`);
  }
  const loopback = isLoopbackBindAddress(url.hostname);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback)) {
    throw refusal(`${variable} must be an https:// URL (http:// only on a loopback host): OAuth tokens must not cross the internet in clear text`);
  }
  if (url.username || url.password || url.search || url.hash || (url.pathname !== '/' && url.pathname !== '')) {
    throw refusal(`${variable} must be an origin only, like https://mcp.example.com (the service serves at the root)`);
  }
  return url.origin;
}

export function readClientIpHeader(raw: string | undefined, variable: string, refusal: Refusal): string | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  const name = raw.trim().toLowerCase();
  if (!/^[a-z0-9-]{1,64}$/.test(name)) throw refusal(`${variable} must be one header name, like cf-connecting-ip`);
  return name;
}

/** The address throttling is keyed on. Assumes the named header, when configured, is set
 * (overwritten) by the tunnel; a value that is not an IP address is ignored. */
export function clientAddress(socketAddress: string | undefined, headerValue: string | string[] | undefined): string {
  const fromHeader = Array.isArray(headerValue) ? headerValue[0] : headerValue;
  // A list-valued header: only the right-most entry was written by our tunnel; entries to
  // its left came from the client and could be rotated to dodge per-IP backoff.
  const candidate = fromHeader?.split(',').at(-1)?.trim();
  if (candidate && isIP(candidate) !== 0) return candidate;
  return (socketAddress ?? 'unknown').replace(/^::ffff:/, '');
}
