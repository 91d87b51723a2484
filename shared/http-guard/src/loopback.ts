/**
 * Which addresses an HTTP edge (gateway, observer, dashboard) may listen on: loopback only
 * (127.0.0.0/8, ::1, localhost). Remote reach is an authenticated tunnel's job; a service
 * bound to a public or wildcard address would hand every terminal to the network.
 */
import { isIPv4, isIPv6 } from 'node:net';

function stripBrackets(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

/** IPv6 literals have many spellings (`::1`, `0:0:0:0:0:0:0:1`); WHATWG URL parsing
 * gives the canonical one. */
function canonicalIPv6(address: string): string | undefined {
  try {
    return stripBrackets(new URL(`http://[${address}]/`).hostname);
  } catch {
    return undefined;
  }
}

/** True for an address that is certainly loopback. Anything else — wildcard (`0.0.0.0`,
 * `::`), a LAN or public address, an IPv4-mapped IPv6 address, another host name — is
 * refused: when in doubt, do not listen. */
export function isLoopbackBindAddress(host: string): boolean {
  const h = stripBrackets(host.trim().toLowerCase());
  if (h === 'localhost') return true;
  // net.isIPv4 rejects shorthand ("127.1") and leading zeros ("0127.0.0.1").
  if (isIPv4(h)) return h.split('.')[0] === '127';
  if (isIPv6(h)) return canonicalIPv6(h) === '::1';
  return false;
}

/** The host part of a URL for an address: IPv6 literals need brackets. */
export function hostForUrl(host: string): string {
  const h = stripBrackets(host);
  return isIPv6(h) ? `[${h}]` : h;
}
