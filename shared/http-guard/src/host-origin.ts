/**
 * Host and Origin checks, on every request. Binding to loopback is not enough: any web
 * page can make a browser send requests to 127.0.0.1 (and DNS rebinding makes an
 * attacker's name resolve there), so a request must name us in `Host` — a loopback name
 * with OUR port, or a configured tunnel host name. A different loopback port is a
 * different origin (another local web app): it is the same *site*, so SameSite cookies
 * are sent to it, which is why the Origin rules below exist.
 *
 * Two Origin rules, for two kinds of endpoint:
 * - `isAllowedOrigin` (MCP edges): Origin may be absent (non-browser clients send none);
 *   when present it must name us.
 * - `isSameOriginMutation` (the dashboard's mutations): Origin, or failing that Referer,
 *   must be exactly our origin; with neither the request is refused.
 */
import { hostForUrl } from './loopback.js';

export interface HostPolicy {
  /** The port we actually listen on (after binding port 0). */
  port: number;
  /** Loopback names that reach us: 127.0.0.1, localhost, [::1], plus the bind address. */
  loopbackNames: ReadonlySet<string>;
  /** Public host names of authenticated tunnels, lower case, with an optional port. */
  publicHosts: readonly PublicHost[];
}

export interface PublicHost {
  hostname: string;
  /** When set, the port must match too; otherwise any port (the tunnel decides). */
  port?: number;
}

interface HostParts {
  hostname: string;
  port: number | undefined;
}

// An RFC 1123 host name or IPv4 literal, or a bracketed IPv6 literal; optional port.
const HOST_HEADER = /^(\[[0-9a-f:.]+\]|[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*\.?)(?::(\d{1,5}))?$/;

/** Splits a Host header (or a configured host entry) into name and port; undefined for
 * anything malformed. Names are compared lower case without a trailing dot. */
export function parseHostHeader(value: string): HostParts | undefined {
  const m = HOST_HEADER.exec(value.trim().toLowerCase());
  if (!m) return undefined;
  const hostname = m[1]!.replace(/\.$/, '');
  const port = m[2] === undefined ? undefined : Number(m[2]);
  if (port !== undefined && (port < 1 || port > 65535)) return undefined;
  return { hostname, port };
}

/**
 * Reads TERMINAL_MCP_PUBLIC_HOSTS entries: `mcp.example.com`, `mcp.example.com:8443`, or
 * (forgivingly) `https://mcp.example.com/`. Returns the entries it could not read, so
 * the caller can refuse to start rather than silently ignore a typo.
 */
export function parsePublicHosts(entries: readonly string[]): { hosts: PublicHost[]; invalid: string[] } {
  const hosts: PublicHost[] = [];
  const invalid: string[] = [];
  for (const raw of entries) {
    const entry = raw.trim();
    if (!entry) continue;
    let hostPart = entry;
    if (entry.includes('://')) {
      try {
        hostPart = new URL(entry).host;
      } catch {
        invalid.push(entry);
        continue;
      }
    }
    const parts = parseHostHeader(hostPart);
    if (!parts || parts.hostname.startsWith('[')) {
      invalid.push(entry);
      continue;
    }
    hosts.push(parts.port === undefined ? { hostname: parts.hostname } : { hostname: parts.hostname, port: parts.port });
  }
  return { hosts, invalid };
}

export function createHostPolicy(opts: { port: number; bindHost: string; publicHosts?: readonly PublicHost[] }): HostPolicy {
  const names = new Set(['127.0.0.1', 'localhost', '[::1]']);
  names.add(hostForUrl(opts.bindHost.trim().toLowerCase()));
  return { port: opts.port, loopbackNames: names, publicHosts: opts.publicHosts ?? [] };
}

function matches(parts: HostParts, effectivePort: number, policy: HostPolicy): boolean {
  if (policy.loopbackNames.has(parts.hostname)) return effectivePort === policy.port;
  return policy.publicHosts.some((p) => p.hostname === parts.hostname && (p.port === undefined || p.port === effectivePort));
}

/**
 * `Host` must be present and name us. A Host without a port means port 80: we cannot
 * tell from Host alone which scheme the client used at the tunnel, so a tunnel host
 * pinned to a port (`mcp.example.com:443`) matches only a Host that names that port;
 * list the name without a port to accept whatever port the tunnel serves on.
 */
export function isAllowedHost(hostHeader: string | undefined | null, policy: HostPolicy): boolean {
  if (!hostHeader) return false;
  const parts = parseHostHeader(hostHeader);
  if (!parts) return false;
  return matches(parts, parts.port ?? 80, policy);
}

/** `Origin` may be absent (non-browser clients send none); when present it must be an
 * http(s) origin that names us. `null` (sandboxed frames, file:) is refused. */
export function isAllowedOrigin(originHeader: string | undefined, policy: HostPolicy): boolean {
  if (originHeader === undefined) return true;
  let url: URL;
  try {
    url = new URL(originHeader);
  } catch {
    return false;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
  // An origin is scheme://host[:port] and nothing else.
  if (url.username || url.password || (url.pathname !== '/' && url.pathname !== '') || url.search || url.hash) return false;
  if (originHeader.trim().replace(/\/$/, '').toLowerCase() !== url.origin.toLowerCase()) return false;
  const parts = parseHostHeader(url.host);
  if (!parts) return false;
  const effectivePort = parts.port ?? (url.protocol === 'https:' ? 443 : 80);
  return matches(parts, effectivePort, policy);
}

/** The origin a mutation must come from, e.g. `http://127.0.0.1:8768`: the scheme the
 * request arrived with (https only when a trusted proxy said so) and the Host it named
 * (already checked by isAllowedHost). */
export function ownOrigin(protocol: 'http' | 'https', hostHeader: string): string {
  return `${protocol}://${hostHeader.trim().toLowerCase().replace(/\.$/, '')}`;
}

/**
 * The same-origin rule for mutations (form posts, JSON endpoints, the WebSocket upgrade):
 * `Origin` must be exactly our origin; when a browser sends no Origin, `Referer` must be
 * a URL on our origin; with neither, the request is refused (every browser we support
 * sends Origin on POST and on WebSocket handshakes). `null` (sandboxed frames) is refused.
 */
export function isSameOriginMutation(
  headers: { origin?: string | null; referer?: string | null },
  expectedOrigin: string,
): boolean {
  const expected = expectedOrigin.toLowerCase();
  const origin = headers.origin ?? undefined;
  if (origin !== undefined && origin !== '') {
    return origin.trim().toLowerCase() === expected;
  }
  const referer = headers.referer ?? undefined;
  if (!referer) return false;
  try {
    return new URL(referer).origin.toLowerCase() === expected;
  } catch {
    return false;
  }
}
