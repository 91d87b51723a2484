/** An OAuth access token for the gateway's or the observer's MCP endpoint, issued through
 * the broker the way the consent page and the token endpoint do (a public client, PKCE,
 * the operator's password): for tests of what a token may do, not of the OAuth flow itself
 * (gateway-oauth.test.ts and observer-oauth.test.ts drive that over HTTP and a browser). */
import { createBrokerClient, type BrokerClient } from '@terminal-mcp/broker-client';
import type { SocketRole } from '@terminal-mcp/contract';
import * as oauth from 'oauth4webapi';

export const TEST_REDIRECT_URI = 'http://127.0.0.1:9/callback';

export interface TokenRequest {
  /** The broker's environment (its socket directory). */
  env: NodeJS.ProcessEnv;
  role: Extract<SocketRole, 'gateway' | 'observer'>;
  /** The MCP endpoint's URL: the token's audience. */
  resource: string;
  username: string;
  password: string;
  /** Absent: the server's default scope. */
  scope?: string;
  clientName?: string;
}

export async function issueAccessToken(req: TokenRequest): Promise<string> {
  return (await issueTokens(req)).accessToken;
}

export interface IssuedTokens {
  accessToken: string;
  refreshToken: string;
  clientId: string;
}

/** The access token with its refresh token and client, for tests that refresh it. */
export async function issueTokens(req: TokenRequest): Promise<IssuedTokens> {
  const b = createBrokerClient({ role: req.role, env: req.env }) as BrokerClient<'observer'>;
  const reg = await b.oauth.registerClient.mutate({ redirectUris: [TEST_REDIRECT_URI], clientName: req.clientName ?? `test ${req.role}`, tokenEndpointAuthMethod: 'none' });
  if (!reg.ok) throw new Error(reg.description);
  const verifier = oauth.generateRandomCodeVerifier();
  const { code } = await b.oauth.approveAuthorization.mutate({
    username: req.username,
    password: req.password,
    sourceIp: '127.0.0.1',
    clientId: reg.client.clientId,
    redirectUri: TEST_REDIRECT_URI,
    codeChallenge: await oauth.calculatePKCECodeChallenge(verifier),
    codeChallengeMethod: 'S256',
    resource: req.resource,
    ...(req.scope !== undefined && { scope: req.scope }),
  });
  const t = await b.oauth.exchangeToken.mutate({ grantType: 'authorization_code', clientId: reg.client.clientId, code, redirectUri: TEST_REDIRECT_URI, codeVerifier: verifier, resource: req.resource });
  if (!t.ok) throw new Error(t.description);
  if (req.scope !== undefined && t.tokens.scope !== req.scope) throw new Error(`asked for scope ${req.scope}, got ${t.tokens.scope}`);
  return { accessToken: t.tokens.accessToken, refreshToken: t.tokens.refreshToken, clientId: reg.client.clientId };
}
