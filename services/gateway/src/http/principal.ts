/** Who an HTTP request acts as, for binding live MCP sessions (@terminal-mcp/mcp-kit's
 * session table): a session answers only the principal that created it. */
/** Who a request acts as, for binding sessions: the OAuth user, client and granted scopes
 * (a token refresh keeps them; another client or a narrower grant does not), else the
 * static token, else the open gateway. NUL cannot occur in any part. */
export function principalKey(auth: { oauth?: { userId: number; clientId: string; scopes: readonly string[] }; staticToken?: boolean }): string {
  if (auth.oauth) return ['oauth', String(auth.oauth.userId), auth.oauth.clientId, [...auth.oauth.scopes].sort().join(' ')].join('\0');
  return auth.staticToken ? 'static' : 'open';
}

