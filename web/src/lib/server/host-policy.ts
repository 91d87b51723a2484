/**
 * Host and same-origin checks. Binding to loopback is not enough: any web page can make
 * a browser send requests to 127.0.0.1 (and DNS rebinding makes an attacker's name
 * resolve there), so every request must name us in `Host`: a loopback name with OUR port,
 * or a configured tunnel host name. Every mutation must also come from our own origin:
 * a page on another loopback port is the same *site* (SameSite cookies are sent to it)
 * but a different *origin*, so the Origin check is what stops it.
 * Mirrors services/gateway/src/http/host-origin.ts (web imports no gateway code).
 */
import { hostForUrl } from './loopback.js';

export interface PublicHost {
  hostname: string;
  /** When set, the port must match too; otherwise any port (the tunnel decides). */
  port?: number;
}

export interface HostPolicy {
  port: number;
  loopbackNames: ReadonlySet<string>;
  publicHosts: readonly PublicHost[];
}

interface HostParts {
  hostname: string;
  port: number | undefined;
}

// An RFC 1123 host name or IPv4 literal, or a bracketed IPv6 literal; optional port.
const HOST_HEADER = /^(\[[0-9a-f:.]+\]|[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*\.?)(?::(\d{1,5}))?$/;

export function parseHostHeader(value: string): HostParts | undefined {
  const m = HOST_HEADER.exec(value.trim().toLowerCase());
  if (!m) return undefined;
  const hostname = m[1]!.replace(/\.$/, '');
  const port = m[2] === undefined ? undefined : Number(m[2]);
  if (port !== undefined && (port < 1 || port > 65535)) return undefined;
  return { hostname, port };
}

/** Reads TERMINAL_MCP_PUBLIC_HOSTS entries (`dash.example.com`, `dash.example.com:8443`,
 * `https://dash.example.com/`); returns the unreadable ones so the caller refuses to start. */
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

/** `Host` must be present and name us. */
export function isAllowedHost(hostHeader: string | undefined | null, policy: HostPolicy): boolean {
  if (!hostHeader) return false;
  const parts = parseHostHeader(hostHeader);
  if (!parts) return false;
  const effectivePort = parts.port ?? 80;
  if (policy.loopbackNames.has(parts.hostname)) return effectivePort === policy.port;
  // A tunnel host named without a port in Host arrived on the scheme's default port.
  return policy.publicHosts.some(
    (p) =>
      p.hostname === parts.hostname &&
      (p.port === undefined || p.port === parts.port || (parts.port === undefined && (p.port === 80 || p.port === 443))),
  );
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
