/**
 * The token endpoint and everything that judges a token. Security properties, each with
 * a test in tokens.test.ts:
 *  - a code is redeemed once: any second presentation is refused AND revokes every token
 *    the first redemption issued (the grant), since one of the two holders is an attacker;
 *  - redemption needs the same client, the exact redirect URI of the authorization
 *    request, a PKCE verifier matching the S256 challenge, and the same `resource`;
 *  - refresh tokens rotate on every use; presenting a rotated one revokes the whole
 *    family (grant), because it means two parties hold it;
 *  - an access token is accepted only for the resource it was issued for (its audience),
 *    while its grant, client and user all still exist and are not revoked.
 * Decisions on one code or refresh token run in one IMMEDIATE transaction, so two
 * concurrent redemptions cannot both win.
 */
import {
  AppError,
  type ExchangeTokenInput,
  type ExchangeTokenResult,
  type IssuedTokens,
  type RevokeTokenInput,
  type RevokeTokenResult,
  type TokenError,
  type VerifiedAccessToken,
  type VerifyAccessTokenInput,
} from '@terminal-mcp/contract';
import type { GrantRecord } from '../effects/store/oauth-store.js';
import type { WebauthStore } from '../effects/store/webauth-store.js';
import { authenticateClient } from './clients.js';
import type { OAuthEnv } from './env.js';
import { pkceS256Matches, scopeOfServer, scopeWithin } from './policy.js';
import { hashSecret, newGrantId, newSecret } from './secrets.js';

/** Used codes are kept this long after they expire, so a late replay still revokes. */
const USED_CODE_RETENTION_MS = 24 * 60 * 60_000;
/** Revoked or exhausted grants are listed this long, then deleted. */
const DEAD_GRANT_RETENTION_MS = 30 * 24 * 60 * 60_000;

type Refusal = Extract<ExchangeTokenResult, { ok: false }>;
const refuse = (error: TokenError, description: string): Refusal => ({ ok: false, error, description });

const INVALID_CLIENT = refuse('invalid_client', 'client authentication failed');

function issuePair(env: OAuthEnv, grant: GrantRecord, now: number): IssuedTokens {
  const accessToken = newSecret('access');
  const refreshToken = newSecret('refresh');
  const accessTtl = env.settings.access_token_ttl_seconds;
  env.store.insertToken({ tokenHash: hashSecret(accessToken), grantId: grant.grantId, kind: 'access', createdAt: now, expiresAt: now + accessTtl * 1000, rotatedAt: null });
  env.store.insertToken({
    tokenHash: hashSecret(refreshToken),
    grantId: grant.grantId,
    kind: 'refresh',
    createdAt: now,
    expiresAt: now + env.settings.refresh_token_ttl_seconds * 1000,
    rotatedAt: null,
  });
  return { accessToken, refreshToken, tokenType: 'Bearer', expiresIn: accessTtl, scope: grant.scope };
}

function redeemCode(env: OAuthEnv, input: Extract<ExchangeTokenInput, { grantType: 'authorization_code' }>, clientId: string): ExchangeTokenResult {
  const now = env.now();
  const codeHash = hashSecret(input.code);
  return env.store.transaction((): ExchangeTokenResult => {
    const code = env.store.findCode(codeHash);
    if (!code) return refuse('invalid_grant', 'unknown authorization code');
    if (code.usedAt !== null) {
      const revoked = code.grantId !== null && env.store.revokeGrant(code.grantId, now, 'authorization code replayed');
      env.log.warn(
        { event: 'security.oauth_code_replayed', clientId: code.clientId, presentedBy: clientId, username: code.username, grantId: code.grantId, revoked },
        'authorization code presented twice: tokens issued from it are revoked',
      );
      return refuse('invalid_grant', 'authorization code already used');
    }
    // Single use, whatever happens next: a failed attempt burns the code too.
    if (!env.store.markCodeUsed(codeHash, now)) return refuse('invalid_grant', 'authorization code already used');
    if (code.clientId !== clientId) return refuse('invalid_grant', 'authorization code was issued to another client');
    if (code.expiresAt <= now) return refuse('invalid_grant', 'authorization code expired');
    if (code.redirectUri !== input.redirectUri) {
      env.log.warn({ event: 'security.oauth_redirect_mismatch', clientId }, 'token request with a different redirect_uri refused');
      return refuse('invalid_grant', 'redirect_uri does not match the authorization request');
    }
    if (!pkceS256Matches(input.codeVerifier, code.codeChallenge)) return refuse('invalid_grant', 'PKCE verification failed');
    if (input.resource !== code.resource) return refuse('invalid_target', 'resource does not match the authorization request');
    if (!scopeOfServer(code.scope, env.settings.scopes)) return refuse('invalid_grant', 'authorization code was issued by another server');

    const grant: GrantRecord = {
      grantId: newGrantId(),
      clientId,
      userId: code.userId,
      username: code.username,
      resource: code.resource,
      scope: code.scope,
      createdAt: now,
      lastRefreshedAt: now,
      revokedAt: null,
      revokedReason: null,
    };
    env.store.insertGrant(grant);
    env.store.setCodeGrant(codeHash, grant.grantId);
    const tokens = issuePair(env, grant, now);
    env.log.info({ event: 'oauth.tokens_issued', grantId: grant.grantId, clientId, username: grant.username }, 'OAuth tokens issued for an authorization code');
    return { ok: true, tokens };
  });
}

function rotateRefreshToken(env: OAuthEnv, input: Extract<ExchangeTokenInput, { grantType: 'refresh_token' }>, clientId: string): ExchangeTokenResult {
  const now = env.now();
  const tokenHash = hashSecret(input.refreshToken);
  return env.store.transaction((): ExchangeTokenResult => {
    const token = env.store.findToken(tokenHash);
    if (!token || token.kind !== 'refresh') return refuse('invalid_grant', 'unknown refresh token');
    const grant = env.store.findGrant(token.grantId);
    if (!grant || grant.clientId !== clientId) return refuse('invalid_grant', 'unknown refresh token');
    if (token.rotatedAt !== null) {
      const revoked = env.store.revokeGrant(grant.grantId, now, 'refresh token reused');
      env.log.warn(
        { event: 'security.oauth_refresh_reused', clientId, username: grant.username, grantId: grant.grantId, revoked },
        'a rotated refresh token was presented again: its whole family is revoked',
      );
      return refuse('invalid_grant', 'refresh token already used');
    }
    if (grant.revokedAt !== null) return refuse('invalid_grant', 'the grant was revoked');
    if (!scopeOfServer(grant.scope, env.settings.scopes)) return refuse('invalid_grant', 'unknown refresh token');
    if (token.expiresAt <= now) return refuse('invalid_grant', 'refresh token expired');
    if (input.resource !== undefined && input.resource !== grant.resource) return refuse('invalid_target', 'resource does not match the grant');
    if (input.scope !== undefined && !scopeWithin(input.scope, grant.scope)) return refuse('invalid_scope', 'scope exceeds the grant');
    if (!env.store.markTokenRotated(tokenHash, now)) return refuse('invalid_grant', 'refresh token already used');
    env.store.touchGrant(grant.grantId, now);
    const tokens = issuePair(env, grant, now);
    env.log.info({ event: 'oauth.tokens_refreshed', grantId: grant.grantId, clientId, username: grant.username }, 'OAuth refresh token rotated');
    return { ok: true, tokens };
  });
}

export function exchangeToken(env: OAuthEnv, input: ExchangeTokenInput): ExchangeTokenResult {
  const now = env.now();
  env.store.prune(now, now - USED_CODE_RETENTION_MS, now - DEAD_GRANT_RETENTION_MS);
  const client = authenticateClient(env, input.clientId, input.clientSecret);
  if (!client) {
    env.log.warn({ event: 'security.oauth_client_auth_failed', endpoint: 'token' }, 'token request with failed client authentication');
    return INVALID_CLIENT;
  }
  return input.grantType === 'authorization_code' ? redeemCode(env, input, client.clientId) : rotateRefreshToken(env, input, client.clientId);
}

const INVALID_TOKEN = () => new AppError('UNAUTHENTICATED', 'invalid, expired or revoked access token, or one issued for another resource');

/** Introspection for a resource server: the token's facts, or UNAUTHENTICATED. */
export function verifyAccessToken(env: OAuthEnv, users: Pick<WebauthStore, 'findUserById'>, input: VerifyAccessTokenInput): VerifiedAccessToken {
  return verifyToken(env, users, input.token, input.resource);
}

/**
 * A token is good at this server when it is a live access token whose grant, client and
 * user still exist, whose scopes all belong to this server (so a gateway token is no
 * observer token and vice versa, whatever URLs they were issued for) and, when
 * `resource` is given, whose audience is exactly that resource. The broker checks a
 * gateway request's credential without a resource (it does not know the gateway's public
 * URL); the gateway checked the audience before calling.
 */
export function verifyToken(env: OAuthEnv, users: Pick<WebauthStore, 'findUserById'>, presented: string, resource: string | undefined): VerifiedAccessToken {
  const now = env.now();
  const token = env.store.findToken(hashSecret(presented));
  if (!token || token.kind !== 'access' || token.expiresAt <= now) throw INVALID_TOKEN();
  const grant = env.store.findGrant(token.grantId);
  if (!grant || grant.revokedAt !== null) throw INVALID_TOKEN();
  if ((resource !== undefined && grant.resource !== resource) || !scopeOfServer(grant.scope, env.settings.scopes)) {
    env.log.warn({ event: 'security.oauth_wrong_audience', grantId: grant.grantId, clientId: grant.clientId, server: env.settings.server }, 'access token for another resource refused');
    throw INVALID_TOKEN();
  }
  const client = env.store.findClient(grant.clientId);
  if (!client || client.revokedAt !== null) throw INVALID_TOKEN();
  const user = users.findUserById(grant.userId);
  if (!user || user.username !== grant.username) throw INVALID_TOKEN();
  return {
    user: { id: user.id, username: user.username },
    clientId: client.clientId,
    clientName: client.clientName,
    scopes: grant.scope.split(' ').filter(Boolean),
    expiresAt: new Date(token.expiresAt).toISOString(),
  };
}

/** RFC 7009: revoking either token of a grant revokes the grant (all its tokens). An
 * unknown token, or another client's, is answered ok without effect. */
export function revokeToken(env: OAuthEnv, input: RevokeTokenInput): RevokeTokenResult {
  const client = authenticateClient(env, input.clientId, input.clientSecret);
  if (!client) {
    env.log.warn({ event: 'security.oauth_client_auth_failed', endpoint: 'revoke' }, 'revocation request with failed client authentication');
    return { ok: false, error: 'invalid_client', description: 'client authentication failed' };
  }
  const token = env.store.findToken(hashSecret(input.token));
  const grant = token ? env.store.findGrant(token.grantId) : undefined;
  if (grant && grant.clientId === client.clientId && env.store.revokeGrant(grant.grantId, env.now(), 'revoked by the client')) {
    env.log.info({ event: 'oauth.grant_revoked', grantId: grant.grantId, clientId: client.clientId, by: 'client' }, 'OAuth grant revoked');
  }
  return { ok: true };
}
