/** The operator's view of OAuth: which clients registered, which grants are live, and
 * revoking by client, user or grant. Used by the `terminal-mcp-observer-admin` CLI and
 * the dashboard (`oauthAdmin.*` on web.sock). Revoking a grant stops its access token at
 * the observer's next request (every request is checked against the broker). */
import { OAUTH_REVOCATIONS_MAX, type OAuthClientSummary, type OAuthGrantSummary, type OAuthRevocation, type OAuthRevoked } from '@terminal-mcp/contract';
import type { OAuthEnv } from './env.js';

const iso = (ms: number) => new Date(ms).toISOString();

export function listClients(env: OAuthEnv): OAuthClientSummary[] {
  return env.store.listClients(env.now()).map((c) => ({
    clientId: c.clientId,
    clientName: c.clientName,
    redirectUris: c.redirectUris,
    tokenEndpointAuthMethod: c.authMethod,
    createdAt: iso(c.createdAt),
    revokedAt: c.revokedAt === null ? null : iso(c.revokedAt),
    activeGrants: c.activeGrants,
  }));
}

export function listGrants(env: OAuthEnv): OAuthGrantSummary[] {
  return env.store.listActiveGrants(env.now()).map((g) => ({
    grantId: g.grantId,
    clientId: g.clientId,
    clientName: g.clientName,
    username: g.username,
    scope: g.scope,
    resource: g.resource,
    createdAt: iso(g.createdAt),
    lastRefreshedAt: iso(g.lastRefreshedAt),
    expiresAt: g.refreshExpiresAt === null ? null : iso(g.refreshExpiresAt),
  }));
}

/** Revocations newest first (the dashboard's /history): who revoked is in `reason`, as
 * written by the revoke functions below. */
export function listRevocations(env: OAuthEnv, limit: number = OAUTH_REVOCATIONS_MAX): OAuthRevocation[] {
  return env.store.listRevocations(limit).map((r) => ({ ...r, at: iso(r.at) }));
}

/** Revokes the client (it can no longer authorize, refresh or call) and all its grants. */
export function revokeClient(env: OAuthEnv, clientId: string, by: string): OAuthRevoked {
  const now = env.now();
  const result = env.store.transaction(() => ({
    revokedClient: env.store.revokeClient(clientId, now),
    revokedGrants: env.store.revokeGrantsOfClient(clientId, now, `client revoked by ${by}`),
  }));
  env.log.info({ event: 'oauth.client_revoked', clientId, by, ...result }, 'OAuth client revoked');
  return result;
}

/** Revokes every grant of an operator account; the user may approve again later. */
export function revokeUser(env: OAuthEnv, username: string, by: string): OAuthRevoked {
  const revokedGrants = env.store.revokeGrantsOfUser(username, env.now(), `user revoked by ${by}`);
  env.log.info({ event: 'oauth.user_revoked', username, by, revokedGrants }, 'OAuth grants of a user revoked');
  return { revokedGrants, revokedClient: false };
}

export function revokeGrant(env: OAuthEnv, grantId: string, by: string): OAuthRevoked {
  const revoked = env.store.revokeGrant(grantId, env.now(), `revoked by ${by}`);
  if (revoked) env.log.info({ event: 'oauth.grant_revoked', grantId, by }, 'OAuth grant revoked');
  return { revokedGrants: revoked ? 1 : 0, revokedClient: false };
}
