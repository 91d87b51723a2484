/** Response writers for every edge. Every response says what it is, is never cached
 * (tokens and per-request CSRF tokens travel in bodies) and sends no Referer onwards (an
 * authorization code in a redirect URL must not leak to third parties). Errors on /mcp use
 * the JSON-RPC error shape MCP clients expect. */
import type { ServerResponse } from 'node:http';

export const COMMON_RESPONSE_HEADERS = {
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
    ...COMMON_RESPONSE_HEADERS,
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(text)),
    ...headers,
  });
  res.end(text);
}

export function sendText(res: ServerResponse, status: number, text: string, contentType: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, {
    ...COMMON_RESPONSE_HEADERS,
    'Content-Type': contentType,
    'Content-Length': String(Buffer.byteLength(text)),
    ...headers,
  });
  res.end(text);
}

/** JSON-RPC error body for /mcp; -32000 is the transport-level code the SDK uses. */
export function jsonRpcError(message: string, code = -32000): unknown {
  return { jsonrpc: '2.0', error: { code, message }, id: null };
}
