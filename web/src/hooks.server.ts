/**
 * Every request, in order: Host check -> same-origin check on mutations -> session
 * cookie validated by the broker (fills App.Locals) -> forced password change -> language
 * -> response headers. Authentication happens here once; authorisation is repeated in
 * every action and endpoint (requireUser) because layout checks do not protect them.
 * The terminal-mcp-web server (src/server/main.ts) runs the Host check too, before
 * SvelteKit and on WebSocket upgrades.
 */
import { randomUUID } from 'node:crypto';
import type { Handle, HandleServerError } from '@sveltejs/kit';
import { sequence } from '@sveltejs/kit/hooks';
import { describeBrokerFailure } from '@terminal-mcp/broker-client';
import { AUTH_LIMITS } from '@terminal-mcp/contract';
import { createHostPolicy, isAllowedHost, isSameOriginMutation, type HostPolicy } from '@terminal-mcp/http-guard';
import { isLang, LANG_COOKIE, negotiateLang } from '$lib/i18n/index.js';
import { asOperator, broker } from '$lib/server/broker.js';
import { logEvent } from '$lib/server/log.js';
import { clearSessionCookie, SESSION_COOKIE, sessionCookieCount } from '$lib/server/session-cookie.js';
import { webSettingsFromEnv } from '$lib/server/settings.js';

let policy: HostPolicy | undefined;
function hostPolicy(): HostPolicy {
  // Read lazily: the server publishes the port it actually bound before serving.
  if (!policy) {
    const s = webSettingsFromEnv(process.env);
    policy = createHostPolicy({ port: s.port, bindHost: s.host, publicHosts: s.publicHosts });
  }
  return policy;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

const guardHost: Handle = ({ event, resolve }) => {
  if (!isAllowedHost(event.request.headers.get('host'), hostPolicy())) {
    logEvent('warn', { event: 'web.host_refused', path: event.url.pathname });
    return new Response('unknown host', { status: 403, headers: { 'content-type': 'text/plain' } });
  }
  return resolve(event);
};

/** SvelteKit's own check covers only form content types (and is off in dev): this one
 * covers every method that can change something, whatever the body type. */
const guardSameOrigin: Handle = ({ event, resolve }) => {
  if (!SAFE_METHODS.has(event.request.method)) {
    const headers = { origin: event.request.headers.get('origin'), referer: event.request.headers.get('referer') };
    if (!isSameOriginMutation(headers, event.url.origin)) {
      // `cookie`: whether the browser attached a session cookie (it does for other loopback
      // ports: same site), so a log reader sees what the check stopped.
      logEvent('warn', { event: 'web.cross_origin_refused', method: event.request.method, path: event.url.pathname, origin: headers.origin ?? null, cookie: event.cookies.get(SESSION_COOKIE) !== undefined });
      return new Response('cross-origin request refused', { status: 403, headers: { 'content-type': 'text/plain' } });
    }
  }
  return resolve(event);
};

/** SvelteKit lets a form action through with `text/plain` (an HTML form may send it), but
 * `request.formData()` cannot read it and the action failed with a 500. None of our forms
 * sends it: refused here with 415 (issue 44: every bad body gets its 4xx). */
const refuseUnreadableBodies: Handle = ({ event, resolve }) => {
  if (!SAFE_METHODS.has(event.request.method)) {
    const type = (event.request.headers.get('content-type') ?? '').split(';', 1)[0]!.trim().toLowerCase();
    if (type === 'text/plain') {
      logEvent('warn', { event: 'web.body_refused', method: event.request.method, path: event.url.pathname, contentType: type });
      return new Response('unsupported media type: send the form as application/x-www-form-urlencoded or multipart/form-data', { status: 415, headers: { 'content-type': 'text/plain' } });
    }
  }
  return resolve(event);
};

const authenticate: Handle = async ({ event, resolve }) => {
  event.locals.user = null;
  event.locals.sessionToken = null;
  event.locals.brokerUnavailable = false;
  // Two login cookies: one was planted (a page on another loopback port can set one for a
  // dashboard path, and the browser sends it first). Neither is trusted.
  const planted = sessionCookieCount(event.request.headers.get('cookie')) > 1;
  if (planted) logEvent('warn', { event: 'security.session_cookie_planted', path: event.url.pathname });
  const token = planted ? undefined : event.cookies.get(SESSION_COOKIE);
  if (token && token.length <= AUTH_LIMITS.tokenMax) {
    try {
      const valid = await broker().auth.validateSession.query({ token });
      if (valid) {
        event.locals.user = valid.user;
        event.locals.sessionToken = token;
      } else {
        clearSessionCookie(event.cookies, event.url);
      }
    } catch (err) {
      const f = describeBrokerFailure(err);
      event.locals.brokerUnavailable = f.code === 'BROKER_UNAVAILABLE';
      if (f.code !== 'BROKER_UNAVAILABLE') clearSessionCookie(event.cookies, event.url);
    }
  } else if (token) {
    clearSessionCookie(event.cookies, event.url);
  }
  const user = event.locals.user;
  const operatorToken = event.locals.sessionToken;
  // Broker calls made for this request carry the operator's session token.
  return user && operatorToken ? asOperator({ username: user.username, token: operatorToken }, () => resolve(event)) : resolve(event);
};

/** Until the first-start password is replaced, only the change-password page, logout and
 * static assets are reachable. */
const PASSWORD_CHANGE_PATHS = new Set(['/change-password', '/logout']);
const enforcePasswordChange: Handle = ({ event, resolve }) => {
  const user = event.locals.user;
  if (user?.mustChangePassword && !PASSWORD_CHANGE_PATHS.has(event.url.pathname) && !event.url.pathname.startsWith('/_app/')) {
    if (SAFE_METHODS.has(event.request.method)) return new Response(null, { status: 303, headers: { location: '/change-password' } });
    return new Response('change your password first', { status: 403, headers: { 'content-type': 'text/plain' } });
  }
  return resolve(event);
};

const language: Handle = ({ event, resolve }) => {
  const remembered = event.cookies.get(LANG_COOKIE);
  event.locals.lang = isLang(remembered) ? remembered : negotiateLang(event.request.headers.get('accept-language'));
  return resolve(event, { transformPageChunk: ({ html }) => html.replace('%lang%', event.locals.lang) });
};

const securityHeaders: Handle = async ({ event, resolve }) => {
  const response = await resolve(event);
  const set = (name: string, value: string) => {
    if (!response.headers.has(name)) response.headers.set(name, value);
  };
  set('x-content-type-options', 'nosniff');
  set('x-frame-options', 'DENY');
  set('referrer-policy', 'same-origin');
  set('cross-origin-opener-policy', 'same-origin');
  set('cross-origin-resource-policy', 'same-origin');
  if (!event.url.pathname.startsWith('/_app/immutable/')) set('cache-control', 'no-store');
  return response;
};

export const handle: Handle = sequence(guardHost, guardSameOrigin, refuseUnreadableBodies, securityHeaders, language, authenticate, enforcePasswordChange);

/** What the browser is told for a refusal SvelteKit raised itself (a body over the size
 * limit, a wrong content type): the request's fault, so never "Internal error". */
const CLIENT_ERROR_MESSAGES: Readonly<Record<number, string>> = {
  400: 'Bad request',
  404: 'Not found',
  405: 'Method not allowed',
  413: 'Payload too large: the request body is over the size limit',
  415: 'Unsupported media type: send the form as application/x-www-form-urlencoded or multipart/form-data',
};

/** Unexpected errors: details to the log with an id, a generic message to the browser. */
export const handleError: HandleServerError = ({ error: err, event, status }) => {
  const id = randomUUID();
  if (status >= 400 && status < 500) {
    if (status !== 404) logEvent('warn', { event: 'web.request_refused', id, path: event.url.pathname, status });
    return { message: CLIENT_ERROR_MESSAGES[status] ?? 'Bad request', id };
  }
  logEvent('error', { event: 'web.internal_error', id, path: event.url.pathname, status, err: err instanceof Error ? { name: err.name, message: err.message, stack: err.stack } : String(err) });
  return { message: 'Internal error', id };
};
