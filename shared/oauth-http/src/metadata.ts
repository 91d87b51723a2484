/** The two discovery documents: RFC 8414 authorization-server metadata and RFC 9728
 * protected-resource metadata. They advertise only what is enforced: the code flow with
 * PKCE S256, refresh tokens, dynamic registration and revocation. */
import { TOKEN_ENDPOINT_AUTH_METHODS } from '@terminal-mcp/contract';
import type { OAuthResourceProfile } from './profile.js';
import type { OAuthUrls } from './urls.js';

export function authorizationServerMetadata(urls: OAuthUrls, profile: OAuthResourceProfile): Record<string, unknown> {
  return {
    issuer: urls.issuer,
    authorization_endpoint: urls.authorizationEndpoint,
    token_endpoint: urls.tokenEndpoint,
    registration_endpoint: urls.registrationEndpoint,
    revocation_endpoint: urls.revocationEndpoint,
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: [...TOKEN_ENDPOINT_AUTH_METHODS],
    revocation_endpoint_auth_methods_supported: [...TOKEN_ENDPOINT_AUTH_METHODS],
    scopes_supported: profile.scopes.map((s) => s.name),
    authorization_response_iss_parameter_supported: true,
  };
}

/** The same document at `/.well-known/oauth-protected-resource` and `.../mcp`: the MCP
 * endpoint is the one protected resource, and clients that look at the root (older MCP
 * clients do) must learn the same resource URL as those that look at the path. */
export function protectedResourceMetadata(urls: OAuthUrls, profile: OAuthResourceProfile): Record<string, unknown> {
  return {
    resource: urls.resource,
    authorization_servers: [urls.issuer],
    scopes_supported: profile.scopes.map((s) => s.name),
    bearer_methods_supported: ['header'],
    resource_name: profile.resourceName,
  };
}
