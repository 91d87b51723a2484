/** The OAuth edges' own response writers (HTML pages, redirects, OAuth errors), on top of
 * the shared ones in @terminal-mcp/http-guard: never cached, no Referer sent onwards. */
import type { ServerResponse } from 'node:http';
import { COMMON_RESPONSE_HEADERS, sendJson } from '@terminal-mcp/http-guard';

export function sendHtml(res: ServerResponse, status: number, html: string, headers: Record<string, string>): void {
  res.writeHead(status, {
    ...COMMON_RESPONSE_HEADERS,
    'Content-Type': 'text/html; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(html)),
    'X-Frame-Options': 'DENY',
    ...headers,
  });
  res.end(html);
}

export function sendEmpty(res: ServerResponse, status: number, headers: Record<string, string> = {}): void {
  res.writeHead(status, { ...COMMON_RESPONSE_HEADERS, 'Content-Length': '0', ...headers });
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
