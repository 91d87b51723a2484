/**
 * Dynamic client registration (RFC 7591) and client authentication. Registration is open
 * (hosted clients register themselves), so what it can do is narrow: redirect URIs only
 * from the configured allowlist or loopback, the one response type `code`, and a cap on
 * stored clients with never-approved ones pruned. A registered client can do nothing
 * until the operator approves it on the consent page.
 */
import {
  OAUTH_LIMITS,
  type DescribeAuthorizationInput,
  type DescribeAuthorizationResult,
  type RegisterClientInput,
  type RegisterClientResult,
} from '@terminal-mcp/contract';
import type { ClientRecord } from '../effects/store/oauth-store.js';
import type { OAuthEnv } from './env.js';
import { cleanClientName, grantedScope, redirectUriAllowed, scopeOfServer } from './policy.js';
import { hashSecret, newClientId, newSecret, secretMatchesHash } from './secrets.js';

/** At most this many registered clients. Never-approved ones older than a week are always
 * pruned; when full, the oldest never-approved ones make room, but only once they are
 * older than the time an operator needs to approve a fresh registration — so a flood of
 * registrations cannot push out the client the operator is approving right now. */
export const MAX_CLIENTS = 500;
const APPROVAL_WINDOW_MS = 15 * 60_000;
const PRUNE_ALWAYS_MS = 7 * 24 * 60 * 60_000;

const SUPPORTED_GRANT_TYPES = ['authorization_code', 'refresh_token'];

export function registerClient(env: OAuthEnv, input: RegisterClientInput): RegisterClientResult {
  const bad = input.redirectUris.filter((u) => !redirectUriAllowed(u, env.settings));
  if (bad.length > 0) {
    env.log.warn({ event: 'security.oauth_redirect_refused', count: bad.length }, 'client registration refused: redirect URI not on the allowlist');
    return {
      ok: false,
      error: 'invalid_redirect_uri',
      description:
        env.settings.server === 'gateway'
          ? "redirect_uris must be on the operator's allowlist (ChatGPT's connector callbacks by default) or http loopback URIs"
          : "redirect_uris must be on the operator's allowlist (claude.ai callbacks by default) or http loopback URIs",
    };
  }
  if (input.grantTypes?.some((g) => !SUPPORTED_GRANT_TYPES.includes(g))) {
    return { ok: false, error: 'invalid_client_metadata', description: 'grant_types may contain only authorization_code and refresh_token' };
  }
  if (input.responseTypes?.some((r) => r !== 'code')) {
    return { ok: false, error: 'invalid_client_metadata', description: 'response_types may contain only code' };
  }

  const now = env.now();
  const client = env.store.transaction(() => {
    env.store.pruneUnusedClients(now - PRUNE_ALWAYS_MS);
    const excess = env.store.countClients() - MAX_CLIENTS + 1;
    if (excess > 0) env.store.evictOldestUnusedClients(now - APPROVAL_WINDOW_MS, excess);
    if (env.store.countClients() >= MAX_CLIENTS) return undefined;
    const secret = input.tokenEndpointAuthMethod === 'none' ? undefined : newSecret('clientSecret');
    const record: ClientRecord = {
      clientId: newClientId(),
      secretHash: secret === undefined ? null : hashSecret(secret),
      clientName: cleanClientName(input.clientName, OAUTH_LIMITS.clientName),
      redirectUris: [...new Set(input.redirectUris)],
      authMethod: input.tokenEndpointAuthMethod,
      grantTypes: SUPPORTED_GRANT_TYPES,
      scope: grantedScope(input.scope, env.settings.scopes),
      createdAt: now,
      revokedAt: null,
    };
    env.store.insertClient(record);
    return { record, secret };
  });
  if (!client) {
    env.log.warn({ event: 'oauth.registration_full', max: MAX_CLIENTS }, 'client registration refused: too many clients');
    return { ok: false, error: 'temporarily_unavailable', description: 'too many registered clients; ask the operator to revoke unused ones' };
  }
  const { record, secret } = client;
  env.log.info(
    { event: 'oauth.client_registered', clientId: record.clientId, clientName: record.clientName, authMethod: record.authMethod, redirectUris: record.redirectUris },
    'OAuth client registered',
  );
  return {
    ok: true,
    client: {
      clientId: record.clientId,
      ...(secret === undefined ? {} : { clientSecret: secret }),
      clientIdIssuedAt: Math.floor(now / 1000),
      clientName: record.clientName,
      redirectUris: record.redirectUris,
      tokenEndpointAuthMethod: record.authMethod,
      grantTypes: record.grantTypes,
      responseTypes: ['code'],
      scope: record.scope,
    },
  };
}

/** Whether a client was registered at THIS authorization server: the two servers share
 * oauth.db, and a client keeps the scopes of the server it registered at, so a client of
 * the observer is unknown at the gateway's sign-in and token endpoints and vice versa
 * (whatever redirect URI both would allow, such as a loopback one). */
function registeredHere(env: OAuthEnv, client: ClientRecord): boolean {
  return scopeOfServer(client.scope, env.settings.scopes);
}

/** A live client and one of its redirect URIs, compared as exact strings. */
export function describeAuthorization(env: OAuthEnv, input: DescribeAuthorizationInput): DescribeAuthorizationResult {
  const client = env.store.findClient(input.clientId);
  if (!client || client.revokedAt !== null || !registeredHere(env, client)) return { ok: false, error: 'invalid_client', description: 'unknown or revoked client_id' };
  // Exact match, and still allowed at THIS server: a client registered at the gateway with
  // ChatGPT's callback is no client of the observer (and vice versa).
  if (!client.redirectUris.includes(input.redirectUri) || !redirectUriAllowed(input.redirectUri, env.settings)) {
    return { ok: false, error: 'invalid_redirect_uri', description: 'redirect_uri is not registered for this client (exact match required)' };
  }
  return { ok: true, clientId: client.clientId, clientName: client.clientName, redirectUri: input.redirectUri };
}

/** Client authentication at the token and revocation endpoints: public clients present no
 * secret; confidential ones must present theirs (by Basic or in the body). */
export function authenticateClient(env: OAuthEnv, clientId: string, secret: string | undefined): ClientRecord | undefined {
  const client = env.store.findClient(clientId);
  if (!client || client.revokedAt !== null || !registeredHere(env, client)) return undefined;
  if (client.authMethod === 'none') return secret === undefined ? client : undefined;
  if (secret === undefined || client.secretHash === null) return undefined;
  return secretMatchesHash(secret, client.secretHash) ? client : undefined;
}
