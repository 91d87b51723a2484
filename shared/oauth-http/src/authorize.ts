/**
 * GET and POST /authorize: the authorization endpoint with its login-and-consent page.
 *
 * Order of checks (RFC 6749 section 4.1.2.1): until the client and its redirect URI are
 * known to be registered (exact match, asked of the broker), errors are shown on our own
 * page and never sent anywhere; after that they go back to the redirect URI with `state`
 * and `iss`. PKCE S256 and `resource` (= our /mcp URL) are required; `plain` or a missing
 * challenge is refused. The POST needs the single-use form token of a page this browser
 * loaded (see pending-authorizations.ts), and the code is issued by the broker only
 * together with the operator's password check.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { AUTH_LIMITS, OAUTH_LIMITS, S256_CHALLENGE_PATTERN } from '@terminal-mcp/contract';
import type { Logger } from 'pino';
import { callBroker, type OAuthBroker } from './broker-call.js';
import { pageSecurityHeaders, renderConsentPage, renderErrorPage } from './consent-page.js';
import { pathOf, readForm, readParams, searchOf } from './form.js';
import { BROWSER_COOKIE, browserCookie, PendingAuthorizations, readCookie, type PendingAuthorization } from './pending-authorizations.js';
import { approvedScope, requestedScopes, type OAuthResourceProfile } from './profile.js';
import { clientAddress } from './public-url.js';
import { redirect, sendHtml } from './responses.js';
import type { OAuthUrls } from './urls.js';

export interface AuthorizeDeps {
  broker: OAuthBroker;
  urls: OAuthUrls;
  profile: OAuthResourceProfile;
  pending: PendingAuthorizations;
  log: Logger;
  /** Mark the browser cookie Secure (the public URL is https). */
  secureCookies: boolean;
  clientIpHeader: string | undefined;
  brokerTimeoutMs: number;
}

const MAX_STATE_CHARS = 1024;
const MAX_FORM_BYTES = 16 * 1024;

function errorPage(res: ServerResponse, status: number, title: string, message: string, whatToDo?: string, headers: Record<string, string> = {}): void {
  sendHtml(res, status, renderErrorPage(title, message, whatToDo), { ...pageSecurityHeaders(), ...headers });
}

/** The gate's refusals (Host, Origin, method) on /authorize: a person is looking at this
 * page, so they get a page saying what to do, not JSON. */
export function refusalPage(res: ServerResponse, status: number, reason: 'host' | 'origin' | 'method'): void {
  if (reason === 'method') return errorPage(res, 405, 'Not available', 'This address only shows the sign-in page.', 'Start the connection again from your MCP client.', { Allow: 'GET, POST' });
  errorPage(
    res,
    status,
    'Request refused',
    reason === 'host'
      ? 'This page was requested under an address Terminal MCP does not answer to.'
      : 'The form was sent from another website, so it was not accepted. Nothing was approved.',
    'Close this window and start the connection again from your MCP client; if it happens again, tell the operator (the service log names the refused request).',
  );
}

/**
 * The one Origin the gate lets through besides our own: `null` on a POST of our consent
 * form that the browser itself marks `Sec-Fetch-Site: same-origin` (Chromium sends
 * Origin: null when a referrer policy strips it; page script cannot set Sec-Fetch-*).
 * A cross-site page is `same-site` or `cross-site`, so it is still refused. The handler
 * then needs the single-use form token AND the cookie of the browser that loaded the
 * page, exactly as for a request that named our origin.
 */
export function isOwnConsentFormWithNullOrigin(req: IncomingMessage): boolean {
  return req.method === 'POST' && pathOf(req) === '/authorize' && req.headers.origin === 'null' && req.headers['sec-fetch-site'] === 'same-origin';
}

/** The redirect URI with our parameters added to whatever query it already has. */
export function redirectTarget(redirectUri: string, params: Record<string, string | undefined>): string {
  const url = new URL(redirectUri);
  for (const [k, v] of Object.entries(params)) if (v !== undefined) url.searchParams.append(k, v);
  return url.href;
}

function unavailablePage(res: ServerResponse, code: string): void {
  if (code === 'BROKER_UNAVAILABLE' || code === 'TIMEOUT') {
    errorPage(res, 503, 'Temporarily unavailable', 'Terminal MCP cannot reach its broker right now. Try again in a moment.');
  } else {
    errorPage(res, 500, 'Something went wrong', 'An internal error occurred. The operator can find it in the service log.');
  }
}

export async function handleAuthorizeGet(req: IncomingMessage, res: ServerResponse, deps: AuthorizeDeps): Promise<void> {
  const params = readParams(searchOf(req));
  if (!params.ok) {
    errorPage(res, 400, 'Invalid request', `The parameter ${params.duplicate.slice(0, 40)} appears more than once.`);
    return;
  }
  const clientId = params.get('client_id');
  const redirectUri = params.get('redirect_uri');
  if (!clientId || !redirectUri || clientId.length > OAUTH_LIMITS.clientId || redirectUri.length > OAUTH_LIMITS.redirectUri) {
    errorPage(res, 400, 'Invalid request', 'client_id and redirect_uri are required.');
    return;
  }
  const described = await callBroker((signal) => deps.broker.describeAuthorization.query({ clientId, redirectUri }, { signal }), deps.brokerTimeoutMs);
  if (!described.ok) {
    deps.log.warn({ event: 'oauth.authorize_broker_failed', error_code: described.failure.code }, 'authorization request could not be checked');
    unavailablePage(res, described.failure.code);
    return;
  }
  if (!described.value.ok) {
    // Never redirect to an unregistered URI: that would make us an open redirector.
    deps.log.warn({ event: 'security.oauth_authorize_refused', error: described.value.error }, 'authorization request refused before redirect');
    errorPage(res, 400, 'Unknown client or redirect URI', described.value.description);
    return;
  }
  const { clientName } = described.value;

  const rawState = params.get('state');
  const state = rawState !== undefined && rawState.length <= MAX_STATE_CHARS ? rawState : undefined;
  const refuse = (error: string, description: string) => {
    deps.log.warn({ event: 'security.oauth_authorize_refused', error, clientId }, 'authorization request refused');
    redirect(res, redirectTarget(redirectUri, { error, error_description: description, state, iss: deps.urls.issuer }));
  };

  if (rawState !== undefined && state === undefined) return refuse('invalid_request', `state is longer than ${MAX_STATE_CHARS} characters`);
  if (params.get('response_type') !== 'code') return refuse('unsupported_response_type', 'only response_type=code is supported');
  const codeChallenge = params.get('code_challenge');
  const method = params.get('code_challenge_method');
  if (codeChallenge === undefined) return refuse('invalid_request', 'PKCE is required: send code_challenge with code_challenge_method=S256');
  // A missing method means "plain" (RFC 7636 section 4.3): refused like an explicit one.
  if (method !== 'S256') return refuse('invalid_request', 'code_challenge_method must be S256 (plain is not supported)');
  if (!S256_CHALLENGE_PATTERN.test(codeChallenge)) return refuse('invalid_request', 'code_challenge must be 43 base64url characters');
  const resource = params.get('resource');
  if (resource === undefined) return refuse('invalid_request', `resource is required (RFC 8707): use ${deps.urls.resource}`);
  if (resource !== deps.urls.resource) return refuse('invalid_target', `this server only issues tokens for ${deps.urls.resource}`);
  const scope = params.get('scope');
  if (scope !== undefined && scope.length > OAUTH_LIMITS.scope) return refuse('invalid_scope', 'scope is too long');

  const request: PendingAuthorization = { clientId, clientName, redirectUri, codeChallenge, resource, scopes: requestedScopes(scope, deps.profile), state };
  showConsent(req, res, deps, request, {});
}

function showConsent(
  req: IncomingMessage,
  res: ServerResponse,
  deps: AuthorizeDeps,
  request: PendingAuthorization,
  opts: { status?: number; error?: string; username?: string; headers?: Record<string, string> },
): void {
  const nonce = PendingAuthorizations.browserNonce(readCookie(req.headers.cookie, BROWSER_COOKIE));
  const formToken = deps.pending.open(request, nonce);
  const html = renderConsentPage({
    profile: deps.profile,
    clientName: request.clientName,
    redirectUri: request.redirectUri,
    formToken,
    scopes: request.scopes,
    error: opts.error,
    username: opts.username,
  });
  sendHtml(res, opts.status ?? 200, html, {
    ...pageSecurityHeaders(request.redirectUri),
    'Set-Cookie': browserCookie(nonce, deps.secureCookies, deps.pending.ttlSeconds),
    ...opts.headers,
  });
}

export async function handleAuthorizePost(req: IncomingMessage, res: ServerResponse, deps: AuthorizeDeps): Promise<void> {
  const form = await readForm(req, MAX_FORM_BYTES);
  if (!form.ok) {
    if ('reason' in form && form.reason === 'aborted') {
      res.destroy();
      return;
    }
    const why = 'reason' in form ? (form.reason === 'too_large' ? 'The form is too large.' : 'The form must be sent as application/x-www-form-urlencoded.') : 'A form field appears more than once.';
    errorPage(res, 'reason' in form && form.reason === 'too_large' ? 413 : 400, 'Invalid form', why);
    return;
  }
  const request = deps.pending.take(form.get('form_token'), readCookie(req.headers.cookie, BROWSER_COOKIE));
  if (!request) {
    deps.log.warn({ event: 'security.oauth_form_refused' }, 'consent form without a valid form token for this browser');
    errorPage(
      res,
      400,
      'This page has expired',
      'The sign-in form is no longer valid (it expired, was already used, or was opened in another browser). Nothing was approved.',
      'Go back to your MCP client and start the connection again; it opens a fresh sign-in page.',
    );
    return;
  }
  const back = (params: Record<string, string>) => redirect(res, redirectTarget(request.redirectUri, { ...params, state: request.state, iss: deps.urls.issuer }));

  const decision = form.get('decision');
  if (decision === 'deny') {
    deps.log.info({ event: 'oauth.authorization_denied', clientId: request.clientId }, 'operator denied the authorization');
    back({ error: 'access_denied', error_description: 'the operator denied access' });
    return;
  }
  const username = form.get('username');
  const password = form.get('password');
  if (decision !== 'approve' || !username || !password) {
    showConsent(req, res, deps, request, { status: 400, error: 'Enter your user name and password, then choose allow or deny.', username });
    return;
  }
  if (username.length > AUTH_LIMITS.attemptedUsernameMax || password.length > AUTH_LIMITS.passwordTransportMax) {
    showConsent(req, res, deps, request, { status: 401, error: 'Invalid user name or password.' });
    return;
  }

  const sourceIp = clientAddress(req.socket.remoteAddress, deps.clientIpHeader ? req.headers[deps.clientIpHeader] : undefined).slice(0, AUTH_LIMITS.sourceIpMax);
  const approved = await callBroker(
    (signal) =>
      deps.broker.approveAuthorization.mutate(
        {
          username,
          password,
          sourceIp,
          clientId: request.clientId,
          redirectUri: request.redirectUri,
          codeChallenge: request.codeChallenge,
          codeChallengeMethod: 'S256',
          resource: request.resource,
          // The operator's choice: reading plus the optional scopes left ticked.
          scope: approvedScope(request.scopes, form, deps.profile),
        },
        { signal },
      ),
    deps.brokerTimeoutMs,
  );
  if (approved.ok) {
    deps.log.info({ event: 'oauth.authorization_approved', clientId: request.clientId, username: approved.value.user.username, scope: approved.value.scope }, 'operator approved the authorization');
    back({ code: approved.value.code });
    return;
  }
  const { failure } = approved;
  switch (failure.code) {
    case 'UNAUTHENTICATED':
      showConsent(req, res, deps, request, { status: 401, error: 'Invalid user name or password.', username });
      return;
    case 'RATE_LIMITED': {
      // describeBrokerFailure keeps the broker's retryAfterSeconds next to the code.
      const retry = (failure as { retryAfterSeconds?: number }).retryAfterSeconds ?? 60;
      showConsent(req, res, deps, request, {
        status: 429,
        error: `Too many failed sign-in attempts. Wait ${retry} s and try again.`,
        username,
        headers: { 'Retry-After': String(retry) },
      });
      return;
    }
    case 'FORBIDDEN':
      showConsent(req, res, deps, request, { status: 403, error: failure.message, username });
      return;
    case 'INVALID_ARGUMENT':
    case 'NOT_FOUND':
      errorPage(res, 400, 'Request no longer valid', 'The client was revoked or changed while this page was open.');
      return;
    default:
      deps.log.error({ event: 'oauth.approve_failed', error_code: failure.code, correlation_id: failure.correlationId }, 'approving an authorization failed');
      unavailablePage(res, failure.code);
  }
}
