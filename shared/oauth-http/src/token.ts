/**
 * POST /token and POST /revoke. The HTTP side only reads the request (urlencoded body,
 * duplicate parameters refused, client credentials by Basic or body) and relays it; the
 * broker decides — single-use codes with replay revocation, exact redirect URI, PKCE,
 * audience binding, refresh rotation with reuse detection. `resource` must name this
 * server's /mcp URL (RFC 8707): a token request for another audience is refused here too.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ExchangeTokenInput } from '@terminal-mcp/contract';
import { sendJson } from '@terminal-mcp/http-guard';
import type { Logger } from 'pino';
import { callBroker, type OAuthBroker } from './broker-call.js';
import { readClientCredentials } from './client-auth.js';
import { readForm } from './form.js';
import { sendEmpty, sendOAuthError } from './responses.js';
import type { OAuthUrls } from './urls.js';

export interface TokenEndpointDeps {
  broker: OAuthBroker;
  urls: OAuthUrls;
  log: Logger;
  brokerTimeoutMs: number;
}

const MAX_FORM_BYTES = 16 * 1024;
const BASIC_CHALLENGE = { 'WWW-Authenticate': 'Basic realm="terminal-mcp"' };

async function readTokenForm(req: IncomingMessage, res: ServerResponse) {
  const form = await readForm(req, MAX_FORM_BYTES);
  if (form.ok) return form;
  if ('reason' in form) {
    if (form.reason === 'aborted') res.destroy();
    else if (form.reason === 'too_large') sendOAuthError(res, 413, 'invalid_request', 'request body too large', { Connection: 'close' });
    else sendOAuthError(res, 400, 'invalid_request', 'send application/x-www-form-urlencoded');
  } else {
    sendOAuthError(res, 400, 'invalid_request', `parameter ${form.duplicate.slice(0, 40)} appears more than once`);
  }
  return undefined;
}

function brokerTrouble(res: ServerResponse, log: Logger, endpoint: string, code: string, correlationId?: string): void {
  log.error({ event: 'oauth.broker_failed', endpoint, error_code: code, correlation_id: correlationId }, 'OAuth endpoint could not reach a decision');
  const unavailable = code === 'BROKER_UNAVAILABLE' || code === 'TIMEOUT' || code === 'STORE_UNAVAILABLE';
  sendOAuthError(res, unavailable ? 503 : 500, unavailable ? 'temporarily_unavailable' : 'server_error', 'try again later');
}

export async function handleToken(req: IncomingMessage, res: ServerResponse, deps: TokenEndpointDeps): Promise<void> {
  const form = await readTokenForm(req, res);
  if (!form) return;
  const creds = readClientCredentials(req, form);
  if (!creds.ok) {
    sendOAuthError(res, creds.error === 'invalid_client' ? 401 : 400, creds.error, creds.description, creds.via === 'basic' ? BASIC_CHALLENGE : {});
    return;
  }
  const auth = { clientId: creds.clientId, ...(creds.clientSecret === undefined ? {} : { clientSecret: creds.clientSecret }) };
  const grantType = form.get('grant_type');
  let input: ExchangeTokenInput;
  if (grantType === 'authorization_code') {
    const code = form.get('code');
    const redirectUri = form.get('redirect_uri');
    const codeVerifier = form.get('code_verifier');
    const resource = form.get('resource');
    if (!code) return sendOAuthError(res, 400, 'invalid_request', 'code is required');
    if (!redirectUri) return sendOAuthError(res, 400, 'invalid_request', 'redirect_uri is required');
    if (!codeVerifier) return sendOAuthError(res, 400, 'invalid_request', 'code_verifier is required (PKCE)');
    if (!resource) return sendOAuthError(res, 400, 'invalid_request', `resource is required (RFC 8707): use ${deps.urls.resource}`);
    if (resource !== deps.urls.resource) return sendOAuthError(res, 400, 'invalid_target', `this server only issues tokens for ${deps.urls.resource}`);
    input = { grantType, ...auth, code, redirectUri, codeVerifier, resource };
  } else if (grantType === 'refresh_token') {
    const refreshToken = form.get('refresh_token');
    const resource = form.get('resource');
    const scope = form.get('scope');
    if (!refreshToken) return sendOAuthError(res, 400, 'invalid_request', 'refresh_token is required');
    if (resource !== undefined && resource !== deps.urls.resource) {
      return sendOAuthError(res, 400, 'invalid_target', `this server only issues tokens for ${deps.urls.resource}`);
    }
    input = { grantType, ...auth, refreshToken, ...(resource === undefined ? {} : { resource }), ...(scope === undefined ? {} : { scope }) };
  } else {
    return sendOAuthError(res, 400, grantType ? 'unsupported_grant_type' : 'invalid_request', 'grant_type must be authorization_code or refresh_token');
  }

  const result = await callBroker((signal) => deps.broker.exchangeToken.mutate(input, { signal }), deps.brokerTimeoutMs);
  if (!result.ok) {
    if (result.failure.code === 'INVALID_ARGUMENT') return sendOAuthError(res, 400, 'invalid_request', 'a parameter is malformed or too long');
    return brokerTrouble(res, deps.log, 'token', result.failure.code, result.failure.correlationId);
  }
  const answer = result.value;
  if (!answer.ok) {
    deps.log.info({ event: 'oauth.token_refused', grant_type: grantType, error: answer.error }, 'token request refused');
    const status = answer.error === 'invalid_client' ? 401 : 400;
    return sendOAuthError(res, status, answer.error, answer.description, status === 401 && creds.via === 'basic' ? BASIC_CHALLENGE : {});
  }
  const t = answer.tokens;
  sendJson(res, 200, { access_token: t.accessToken, token_type: t.tokenType, expires_in: t.expiresIn, refresh_token: t.refreshToken, scope: t.scope });
}

export async function handleRevoke(req: IncomingMessage, res: ServerResponse, deps: TokenEndpointDeps): Promise<void> {
  const form = await readTokenForm(req, res);
  if (!form) return;
  const creds = readClientCredentials(req, form);
  if (!creds.ok) {
    sendOAuthError(res, creds.error === 'invalid_client' ? 401 : 400, creds.error, creds.description, creds.via === 'basic' ? BASIC_CHALLENGE : {});
    return;
  }
  const token = form.get('token');
  if (!token) return sendOAuthError(res, 400, 'invalid_request', 'token is required');
  const hint = form.get('token_type_hint');
  const result = await callBroker(
    (signal) =>
      deps.broker.revokeToken.mutate(
        {
          clientId: creds.clientId,
          ...(creds.clientSecret === undefined ? {} : { clientSecret: creds.clientSecret }),
          token,
          ...(hint === undefined ? {} : { tokenTypeHint: hint }),
        },
        { signal },
      ),
    deps.brokerTimeoutMs,
  );
  if (!result.ok) {
    // RFC 7009: an invalid token is answered 200; only malformed input is not.
    if (result.failure.code === 'INVALID_ARGUMENT') return sendEmpty(res, 200);
    return brokerTrouble(res, deps.log, 'revoke', result.failure.code, result.failure.correlationId);
  }
  if (!result.value.ok) return sendOAuthError(res, 401, 'invalid_client', result.value.description, creds.via === 'basic' ? BASIC_CHALLENGE : {});
  sendEmpty(res, 200);
}
