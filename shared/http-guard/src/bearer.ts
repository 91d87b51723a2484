/** A static bearer token in front of an endpoint (the gateway's optional
 * TERMINAL_MCP_GATEWAY_TOKEN). Compared in constant time: both sides are hashed first, so
 * neither the content nor the length of the configured token leaks through timing. */
import { createHash, timingSafeEqual } from 'node:crypto';

// Any non-blank token text, so an operator-chosen token with unusual characters still works.
const BEARER = /^Bearer +(\S+) *$/i;

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

export function bearerTokenMatches(authorization: string | undefined, expected: string): boolean {
  const m = authorization ? BEARER.exec(authorization) : null;
  // Hash something even when the header is malformed, to keep timing uniform.
  const presented = m ? m[1]! : '';
  const same = timingSafeEqual(digest(presented), digest(expected));
  return m !== null && same;
}

/** Sent with every 401 for a static token (RFC 6750). */
export function wwwAuthenticate(presented: boolean): string {
  return presented ? 'Bearer realm="terminal-mcp", error="invalid_token"' : 'Bearer realm="terminal-mcp"';
}
