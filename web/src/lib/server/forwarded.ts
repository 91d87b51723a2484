/**
 * Which scheme and client address a request really has. Only the configured trusted
 * proxy (TERMINAL_MCP_TRUSTED_PROXY, one IP address) may tell us through
 * X-Forwarded-Proto / X-Forwarded-For; from anyone else those headers are ignored and the
 * socket's own address and plain http are the truth. The server decides this once per
 * request and hands it to SvelteKit in two private headers that it always overwrites, so a
 * client can never supply them.
 */
import { isIP } from 'node:net';

/** adapter-node reads these (PROTOCOL_HEADER / ADDRESS_HEADER); our server sets them. */
export const PROTO_HEADER = 'x-terminal-mcp-web-proto';
export const CLIENT_IP_HEADER = 'x-terminal-mcp-web-client-ip';

export interface RequestOrigin {
  protocol: 'http' | 'https';
  clientIp: string;
}

/** `::ffff:127.0.0.1` and `127.0.0.1` are the same peer. */
export function normalizeIp(address: string | undefined): string {
  if (!address) return 'unknown';
  const a = address.trim();
  return a.toLowerCase().startsWith('::ffff:') && isIP(a.slice(7)) === 4 ? a.slice(7) : a;
}

function firstHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

export function resolveRequestOrigin(
  socketAddress: string | undefined,
  headers: Record<string, string | string[] | undefined>,
  trustedProxy: string | undefined,
  socketEncrypted = false,
): RequestOrigin {
  const peer = normalizeIp(socketAddress);
  if (!trustedProxy || peer !== normalizeIp(trustedProxy)) {
    return { protocol: socketEncrypted ? 'https' : 'http', clientIp: peer };
  }
  const proto = firstHeader(headers['x-forwarded-proto'])?.split(',')[0]?.trim().toLowerCase();
  // The proxy appends the address it saw: the right-most entry is the one it vouches for.
  const forwardedFor = firstHeader(headers['x-forwarded-for'])?.split(',').map((s) => s.trim()).filter(Boolean);
  const last = forwardedFor?.[forwardedFor.length - 1];
  const clientIp = last && isIP(normalizeIp(last)) ? normalizeIp(last) : peer;
  return { protocol: proto === 'https' ? 'https' : 'http', clientIp };
}
