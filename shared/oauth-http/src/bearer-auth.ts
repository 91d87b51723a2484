/**
 * The protected resource's check, on every request to /mcp: `Authorization: Bearer
 * <token>` with an access token the broker accepts FOR THIS RESOURCE (`<public url>/mcp`,
 * the token's audience) and with this server's reading scope — checked on every request,
 * so a revocation or expiry takes effect at once. Otherwise 401 with
 * `WWW-Authenticate: Bearer resource_metadata="..."`, which is how an MCP client
 * discovers where to get a token (RFC 9728, MCP authorization spec).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { OAUTH_LIMITS, type VerifiedAccessToken } from '@terminal-mcp/contract';
import { jsonRpcError, sendJson } from '@terminal-mcp/http-guard';
import type { Logger } from 'pino';
import { callBroker, type OAuthBroker } from './broker-call.js';
import type { OAuthResourceProfile } from './profile.js';
import type { OAuthUrls } from './urls.js';

export interface BearerAuthDeps {
  broker: OAuthBroker;
  urls: OAuthUrls;
  profile: OAuthResourceProfile;
  log: Logger;
  brokerTimeoutMs: number;
}

const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

export function bearerChallenge(urls: OAuthUrls, profile: OAuthResourceProfile, error?: { error: string; description: string }): string {
  const base = `Bearer resource_metadata="${urls.resourceMetadata}", scope="${profile.scopes.map((s) => s.name).join(' ')}"`;
  return error ? `${base}, error="${error.error}", error_description="${error.description}"` : base;
}

export type BearerAuthResult = { ok: true; verified: VerifiedAccessToken; accessToken: string } | { ok: false };

/** Answers 401/403/503 itself when the request may not proceed. */
export async function authenticateBearer(req: IncomingMessage, res: ServerResponse, deps: BearerAuthDeps): Promise<BearerAuthResult> {
  const header = req.headers.authorization;
  const m = header ? BEARER.exec(header) : null;
  if (!m || m[1]!.length > OAUTH_LIMITS.token) {
    const presented = header !== undefined;
    if (presented) deps.log.warn({ event: 'security.mcp_bad_authorization' }, 'malformed Authorization header on /mcp');
    sendJson(res, 401, jsonRpcError('Unauthorized: a bearer access token is required'), {
      'WWW-Authenticate': bearerChallenge(deps.urls, deps.profile, presented ? { error: 'invalid_request', description: 'malformed Authorization header' } : undefined),
    });
    return { ok: false };
  }
  const accessToken = m[1]!;
  const verified = await callBroker((signal) => deps.broker.verifyAccessToken.query({ token: accessToken, resource: deps.urls.resource }, { signal }), deps.brokerTimeoutMs);
  if (verified.ok) {
    const reading = deps.profile.scopes[0].name;
    if (!verified.value.scopes.includes(reading)) {
      sendJson(res, 403, jsonRpcError(`Forbidden: the access token lacks the ${reading} scope`), {
        'WWW-Authenticate': bearerChallenge(deps.urls, deps.profile, { error: 'insufficient_scope', description: `${reading} is required` }),
      });
      return { ok: false };
    }
    return { ok: true, verified: verified.value, accessToken };
  }
  const code = verified.failure.code;
  if (code === 'UNAUTHENTICATED' || code === 'INVALID_ARGUMENT') {
    deps.log.warn({ event: 'security.mcp_token_refused' }, 'access token refused on /mcp');
    sendJson(res, 401, jsonRpcError('Unauthorized: the access token is invalid, expired, revoked or for another resource'), {
      'WWW-Authenticate': bearerChallenge(deps.urls, deps.profile, { error: 'invalid_token', description: 'invalid, expired or revoked token, or another audience' }),
    });
  } else {
    deps.log.error({ event: 'mcp.token_check_failed', error_code: code, correlation_id: verified.failure.correlationId }, 'could not check an access token');
    sendJson(res, 503, jsonRpcError('Service unavailable: cannot check the access token right now'), { 'Retry-After': '5' });
  }
  return { ok: false };
}
