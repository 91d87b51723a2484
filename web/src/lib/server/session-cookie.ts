/** The login cookie: the broker's session token, HttpOnly, SameSite=Strict, Path=/,
 * Secure when the request arrived over TLS through the trusted proxy (then url.protocol
 * is https: the server decided that, see forwarded.ts). */
import type { Cookies } from '@sveltejs/kit';

export const SESSION_COOKIE = 'tmcp_session';

export function setSessionCookie(cookies: Cookies, url: URL, token: string, expiresAt: string): void {
  cookies.set(SESSION_COOKIE, token, {
    path: '/',
    httpOnly: true,
    sameSite: 'strict',
    secure: url.protocol === 'https:',
    expires: new Date(expiresAt),
  });
}

export function clearSessionCookie(cookies: Cookies, url: URL): void {
  cookies.delete(SESSION_COOKIE, { path: '/', httpOnly: true, sameSite: 'strict', secure: url.protocol === 'https:' });
}

/** How many login cookies a raw Cookie header carries. More than one means someone
 * planted another: cookies are not scoped by port, so a page on any other loopback port
 * can set `tmcp_session` for a dashboard path, and the browser then sends that one first
 * for the path. Such a request has no session at all (hooks.server.ts). */
export function sessionCookieCount(header: string | null | undefined): number {
  if (!header) return 0;
  return header.split(';').filter((part) => part.slice(0, Math.max(0, part.indexOf('='))).trim() === SESSION_COOKIE).length;
}

/** Reads the token from a raw Cookie header (the WebSocket upgrade has no SvelteKit
 * cookies API); none when the header carries two login cookies (see sessionCookieCount). */
export function sessionTokenFromCookieHeader(header: string | undefined): string | undefined {
  if (!header || sessionCookieCount(header) !== 1) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === SESSION_COOKIE) {
      const value = part.slice(eq + 1).trim();
      try {
        return decodeURIComponent(value) || undefined;
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}
