/**
 * Which addresses the dashboard may listen on: loopback only (127.0.0.0/8, ::1,
 * localhost). Remote reach is an authenticated tunnel's job. Mirrors the gateway's rule
 * (services/gateway/src/http/loopback.ts); web imports no gateway code.
 */
import { isIPv4, isIPv6 } from 'node:net';

function stripBrackets(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

function canonicalIPv6(address: string): string | undefined {
  try {
    return stripBrackets(new URL(`http://[${address}]/`).hostname);
  } catch {
    return undefined;
  }
}

/** True only for an address that is certainly loopback; wildcard, LAN, public and
 * IPv4-mapped addresses and other host names are refused: when in doubt, do not listen. */
export function isLoopbackBindAddress(host: string): boolean {
  const h = stripBrackets(host.trim().toLowerCase());
  if (h === 'localhost') return true;
  if (isIPv4(h)) return h.split('.')[0] === '127';
  if (isIPv6(h)) return canonicalIPv6(h) === '::1';
  return false;
}

/** The host part of a URL for an address: IPv6 literals need brackets. */
export function hostForUrl(host: string): string {
  const h = stripBrackets(host);
  return isIPv6(h) ? `[${h}]` : h;
}
