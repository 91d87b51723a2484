/** Response writers. Every response says what it is, is never cached (tokens and
 * per-request CSRF tokens travel in bodies) and sends no Referer onwards (an
 * authorization code in a redirect URL must not leak to third parties). */
import type { ServerResponse } from 'node:http';

const COMMON_HEADERS = {
  'Cache-Control': 'no-store',
  Pragma: 'no-cache',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
} as const;

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  const text = JSON.stringify(body);
  res.writeHead(status, {
    ...COMMON_HEADERS,
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(text)),
    ...headers,
  });
  res.end(text);
}

export function sendHtml(res: ServerResponse, status: number, html: string, headers: Record<string, string>): void {
  res.writeHead(status, {
    ...COMMON_HEADERS,
    'Content-Type': 'text/html; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(html)),
    'X-Frame-Options': 'DENY',
    ...headers,
  });
  res.end(html);
}

export function sendEmpty(res: ServerResponse, status: number, headers: Record<string, string> = {}): void {
  res.writeHead(status, { ...COMMON_HEADERS, 'Content-Length': '0', ...headers });
  res.end();
}

/** 303 See Other: the browser follows with a GET, whatever method brought it here. */
export function redirect(res: ServerResponse, location: string): void {
  sendEmpty(res, 303, { Location: location });
}

/** RFC 6749 section 5.2 error body (also used by registration and revocation). */
export function sendOAuthError(res: ServerResponse, status: number, error: string, description: string, headers: Record<string, string> = {}): void {
  sendJson(res, status, { error, error_description: description }, headers);
}

/** JSON-RPC error body for /mcp; -32000 is the transport-level code the SDK uses. */
export function jsonRpcError(message: string, code = -32000): unknown {
  return { jsonrpc: '2.0', error: { code, message }, id: null };
}
