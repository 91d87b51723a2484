/** Every URL an authorization server (observer or gateway) announces, derived from one public origin. The issuer is the
 * origin itself (RFC 8414: no path, so metadata lives at the root); the protected
 * resource is `<origin>/mcp`, and that exact string is every token's audience. */
export interface OAuthUrls {
  issuer: string;
  resource: string;
  authorizationEndpoint: string;
  tokenEndpoint: string;
  registrationEndpoint: string;
  revocationEndpoint: string;
  /** RFC 9728 metadata of the /mcp resource; named in every 401's WWW-Authenticate. */
  resourceMetadata: string;
}

export function oauthUrls(origin: string): OAuthUrls {
  const base = origin.replace(/\/+$/, '');
  return {
    issuer: base,
    resource: `${base}/mcp`,
    authorizationEndpoint: `${base}/authorize`,
    tokenEndpoint: `${base}/token`,
    registrationEndpoint: `${base}/register`,
    revocationEndpoint: `${base}/revoke`,
    resourceMetadata: `${base}/.well-known/oauth-protected-resource/mcp`,
  };
}
