/** Schemas of the OAuth 2.1 procedures the observer calls (`oauth.*` on observer.sock)
 * and of the OAuth administration the dashboard calls (`oauthAdmin.*` on web.sock).
 * These are broker-internal APIs between our own processes, so fields are camelCase; the
 * observer translates them to and from the RFC wire names. Every string and array is
 * capped: the caller is an unprivileged process that relays internet input.
 *
 * OAuth protocol refusals (RFC 6749 section 5.2 and friends) are RESULTS, not thrown
 * errors: `{ ok: false, error, description }` carries the registered OAuth error code the
 * observer must send back verbatim. Thrown AppErrors mean something else went wrong
 * (bad credentials on the login page, an unavailable store). */
import { BROKER_HEADERS } from './paths.js';
import { z } from 'zod';
import { loginInputSchema } from './auth.js';

export const OAUTH_LIMITS = {
  clientId: 64,
  clientSecret: 128,
  clientName: 100,
  redirectUri: 2048,
  redirectUris: 10,
  /** Our tokens are ~50 characters; the cap is looser so garbage is answered "invalid"
   * rather than as a schema violation. */
  token: 512,
  resource: 2048,
  scope: 512,
  codeVerifierMin: 43,
  codeVerifierMax: 128,
  description: 300,
} as const;

/** The one scope the observer grants: read terminals and project sources. */
export const OBSERVER_SCOPE = 'observer:read';
export const OAUTH_SCOPES = [OBSERVER_SCOPE] as const;

/** The gateway's scopes: reading, changing Terminal MCP's own state (notes, bindings,
 * watches, supervisor policies) and acting on the host (typing into panes, approving
 * queued input, running the operator's configured commands) are separate, so the operator
 * can approve a connector for reading only. Input implies write (services/broker/src/policy/authority.ts). */
export const GATEWAY_READ_SCOPE = 'terminal:read';
export const GATEWAY_WRITE_SCOPE = 'terminal:write';
export const GATEWAY_INPUT_SCOPE = 'terminal:input';
export const GATEWAY_OAUTH_SCOPES = [GATEWAY_READ_SCOPE, GATEWAY_WRITE_SCOPE, GATEWAY_INPUT_SCOPE] as const;

/** The two OAuth resource servers sharing oauth.db, and the scopes each may grant. The
 * broker grants and accepts on each socket only that server's scopes, so a token of one
 * is never valid at the other (besides the audience check on the resource URL). */
export const OAUTH_SCOPES_BY_SERVER = { observer: OAUTH_SCOPES, gateway: GATEWAY_OAUTH_SCOPES } as const;
export type OAuthServer = keyof typeof OAUTH_SCOPES_BY_SERVER;

/** The gateway names the OAuth access token its MCP request came with in this header on
 * every broker call; the broker verifies it itself and derives the actor (client name and
 * operator) and the scopes from it, trusting no claim of the gateway. */
export const CREDENTIAL_HEADER = BROKER_HEADERS.credential;

export const TOKEN_ENDPOINT_AUTH_METHODS = ['none', 'client_secret_post', 'client_secret_basic'] as const;
export const tokenEndpointAuthMethodSchema = z.enum(TOKEN_ENDPOINT_AUTH_METHODS);
export type TokenEndpointAuthMethod = z.infer<typeof tokenEndpointAuthMethodSchema>;

/** RFC 7636: 43-128 characters of [A-Z a-z 0-9 - . _ ~]. */
export const CODE_VERIFIER_PATTERN = /^[A-Za-z0-9\-._~]{43,128}$/;
/** BASE64URL(SHA-256(verifier)) without padding is always 43 characters. */
export const S256_CHALLENGE_PATTERN = /^[A-Za-z0-9_-]{43}$/;

const clientId = z.string().min(1).max(OAUTH_LIMITS.clientId);
const clientSecret = z.string().min(1).max(OAUTH_LIMITS.clientSecret);
const redirectUri = z.string().min(1).max(OAUTH_LIMITS.redirectUri);
const resource = z.string().min(1).max(OAUTH_LIMITS.resource);
const scope = z.string().max(OAUTH_LIMITS.scope);
const token = z.string().min(1).max(OAUTH_LIMITS.token);

/** An OAuth protocol refusal with its registered error code. */
export function oauthRefusalSchema<const E extends readonly [string, ...string[]]>(errors: E) {
  return z.object({ ok: z.literal(false), error: z.enum(errors), description: z.string().max(OAUTH_LIMITS.description) });
}

// ---- registration (RFC 7591) ---------------------------------------------------------

export const registerClientInputSchema = z
  .object({
    redirectUris: z.array(redirectUri).min(1).max(OAUTH_LIMITS.redirectUris),
    clientName: z.string().max(OAUTH_LIMITS.clientName * 4).optional(),
    tokenEndpointAuthMethod: tokenEndpointAuthMethodSchema,
    grantTypes: z.array(z.string().max(64)).max(10).optional(),
    responseTypes: z.array(z.string().max(64)).max(10).optional(),
    scope: scope.optional(),
  })
  .strict();
export type RegisterClientInput = z.infer<typeof registerClientInputSchema>;

export const registeredClientSchema = z.object({
  clientId: z.string(),
  /** Present for confidential clients only, and only in the registration answer. */
  clientSecret: z.string().optional(),
  /** Seconds since the epoch (RFC 7591 `client_id_issued_at`). */
  clientIdIssuedAt: z.number().int(),
  clientName: z.string(),
  redirectUris: z.array(z.string()),
  tokenEndpointAuthMethod: tokenEndpointAuthMethodSchema,
  grantTypes: z.array(z.string()),
  responseTypes: z.array(z.string()),
  scope: z.string(),
});
export type RegisteredClient = z.infer<typeof registeredClientSchema>;

export const registerClientResultSchema = z.union([
  z.object({ ok: z.literal(true), client: registeredClientSchema }),
  oauthRefusalSchema(['invalid_redirect_uri', 'invalid_client_metadata', 'temporarily_unavailable']),
]);
export type RegisterClientResult = z.infer<typeof registerClientResultSchema>;

// ---- authorization request ------------------------------------------------------------

/** Before the login page is shown: is this a registered client, and is this one of its
 * redirect URIs (exact string match)? Only then may errors be sent to the redirect URI. */
export const describeAuthorizationInputSchema = z.object({ clientId, redirectUri }).strict();
export type DescribeAuthorizationInput = z.infer<typeof describeAuthorizationInputSchema>;

export const describeAuthorizationResultSchema = z.union([
  z.object({ ok: z.literal(true), clientId: z.string(), clientName: z.string(), redirectUri: z.string() }),
  oauthRefusalSchema(['invalid_client', 'invalid_redirect_uri']),
]);
export type DescribeAuthorizationResult = z.infer<typeof describeAuthorizationResultSchema>;

/** The operator's credentials and the request they approve, in one call: the broker
 * checks the password (with the dashboard's throttling) and only then issues a code bound
 * to that user, so no caller can mint a code without the operator's password. */
export const approveAuthorizationInputSchema = loginInputSchema
  .extend({
    clientId,
    redirectUri,
    codeChallenge: z.string().regex(S256_CHALLENGE_PATTERN, 'code_challenge must be a base64url S256 challenge'),
    codeChallengeMethod: z.literal('S256'),
    resource,
    scope: scope.optional(),
  })
  .strict();
export type ApproveAuthorizationInput = z.infer<typeof approveAuthorizationInputSchema>;

export const approvedAuthorizationSchema = z.object({
  code: z.string(),
  scope: z.string(),
  user: z.object({ id: z.number().int(), username: z.string() }),
});
export type ApprovedAuthorization = z.infer<typeof approvedAuthorizationSchema>;

// ---- token endpoint -----------------------------------------------------------------------

const clientAuth = { clientId, clientSecret: clientSecret.optional() };

export const exchangeTokenInputSchema = z.discriminatedUnion('grantType', [
  z
    .object({
      grantType: z.literal('authorization_code'),
      ...clientAuth,
      code: token,
      redirectUri,
      codeVerifier: z.string().min(1).max(OAUTH_LIMITS.codeVerifierMax * 2),
      resource,
    })
    .strict(),
  z
    .object({
      grantType: z.literal('refresh_token'),
      ...clientAuth,
      refreshToken: token,
      resource: resource.optional(),
      scope: scope.optional(),
    })
    .strict(),
]);
export type ExchangeTokenInput = z.infer<typeof exchangeTokenInputSchema>;

export const TOKEN_ERRORS = ['invalid_request', 'invalid_client', 'invalid_grant', 'unauthorized_client', 'invalid_scope', 'invalid_target'] as const;
export type TokenError = (typeof TOKEN_ERRORS)[number];

export const issuedTokensSchema = z.object({
  accessToken: z.string(),
  refreshToken: z.string(),
  tokenType: z.literal('Bearer'),
  /** Seconds the access token lives. */
  expiresIn: z.number().int(),
  scope: z.string(),
});
export type IssuedTokens = z.infer<typeof issuedTokensSchema>;

export const exchangeTokenResultSchema = z.union([
  z.object({ ok: z.literal(true), tokens: issuedTokensSchema }),
  oauthRefusalSchema(TOKEN_ERRORS),
]);
export type ExchangeTokenResult = z.infer<typeof exchangeTokenResultSchema>;

// ---- revocation (RFC 7009) ------------------------------------------------------------

export const revokeTokenInputSchema = z
  .object({ ...clientAuth, token, tokenTypeHint: z.string().max(64).optional() })
  .strict();
export type RevokeTokenInput = z.infer<typeof revokeTokenInputSchema>;

export const revokeTokenResultSchema = z.union([z.object({ ok: z.literal(true) }), oauthRefusalSchema(['invalid_client'])]);
export type RevokeTokenResult = z.infer<typeof revokeTokenResultSchema>;

// ---- introspection for the resource server ---------------------------------------------

/** `resource` is the observer's own resource URL: a token whose audience differs is
 * refused exactly like an unknown one (UNAUTHENTICATED). */
export const verifyAccessTokenInputSchema = z.object({ token, resource }).strict();
export type VerifyAccessTokenInput = z.infer<typeof verifyAccessTokenInputSchema>;

export const verifiedAccessTokenSchema = z.object({
  user: z.object({ id: z.number().int(), username: z.string() }),
  clientId: z.string(),
  clientName: z.string(),
  scopes: z.array(z.string()),
  /** ISO 8601. */
  expiresAt: z.string(),
});
export type VerifiedAccessToken = z.infer<typeof verifiedAccessTokenSchema>;

// ---- administration (dashboard, CLI) -----------------------------------------------------

export const oauthClientSummarySchema = z.object({
  clientId: z.string(),
  clientName: z.string(),
  redirectUris: z.array(z.string()),
  tokenEndpointAuthMethod: tokenEndpointAuthMethodSchema,
  createdAt: z.string(),
  revokedAt: z.string().nullable(),
  activeGrants: z.number().int(),
});
export type OAuthClientSummary = z.infer<typeof oauthClientSummarySchema>;

export const oauthGrantSummarySchema = z.object({
  grantId: z.string(),
  clientId: z.string(),
  clientName: z.string(),
  username: z.string(),
  scope: z.string(),
  resource: z.string(),
  createdAt: z.string(),
  lastRefreshedAt: z.string(),
  /** When the newest refresh token of the grant expires. */
  expiresAt: z.string().nullable(),
});
export type OAuthGrantSummary = z.infer<typeof oauthGrantSummarySchema>;

/** One OAuth revocation for the dashboard's history: a client, or the grants revoked
 * together (by client, by user, one grant, or by the broker on refresh-token reuse). */
export const oauthRevocationSchema = z.object({
  at: z.string(),
  kind: z.enum(['client', 'grants']),
  clientId: z.string(),
  clientName: z.string(),
  username: z.string().nullable(),
  grants: z.number().int(),
  /** Who or what revoked it, as recorded ("revoked by web:admin"); null for a client. */
  reason: z.string().nullable(),
});
export type OAuthRevocation = z.infer<typeof oauthRevocationSchema>;
export const OAUTH_REVOCATIONS_MAX = 100;
export const oauthListRevocationsInputSchema = z.object({ limit: z.number().int().min(1).max(OAUTH_REVOCATIONS_MAX).optional() }).strict();

export const oauthRevokeClientInputSchema = z.object({ clientId }).strict();
export const oauthRevokeUserInputSchema = z.object({ username: z.string().min(1).max(64) }).strict();
export const oauthRevokeGrantInputSchema = z.object({ grantId: z.string().min(1).max(64) }).strict();
export const oauthRevokedSchema = z.object({ revokedGrants: z.number().int(), revokedClient: z.boolean() });
export type OAuthRevoked = z.infer<typeof oauthRevokedSchema>;
