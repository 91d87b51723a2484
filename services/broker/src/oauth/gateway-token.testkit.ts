/** Test kit (not built into dist): a real gateway OAuth access token, issued the way the
 * consent page and token endpoint issue one (registration, the operator's password,
 * PKCE, a single-use code), so tests reach the broker with a credential it verifies
 * itself instead of a hand-made caller. */
import { createHash, randomBytes } from 'node:crypto';
import type { BrokerDeps } from '../rpc/deps.js';
import { createAccount } from '../webauth/accounts.js';
import { approveAuthorization } from './authorize.js';
import { registerClient } from './clients.js';
import { exchangeToken } from './tokens.js';

const PASSWORD = 'test kit operator passphrase 41';
const REDIRECT = 'http://127.0.0.1:9/callback';
const VERIFIER = 'kit-verifier-'.padEnd(60, 'x');

/** An access token for the gateway with exactly `scope` (space separated), approved by
 * `username` for a client registered as `clientName`. */
export async function gatewayAccessToken(deps: Pick<BrokerDeps, 'oauth'>, opts: { scope: string; username?: string; clientName?: string }): Promise<string> {
  const env = deps.oauth.gateway;
  const username = opts.username ?? 'kit-operator';
  if (env.webauth.store.findUserByName(username) === undefined) {
    const made = await createAccount(env.webauth, username, PASSWORD);
    if (!made.ok) throw new Error(`test kit: could not create ${username}`);
  }
  const registered = registerClient(env, { redirectUris: [REDIRECT], clientName: opts.clientName ?? 'Kit Client', tokenEndpointAuthMethod: 'none' });
  if (!registered.ok) throw new Error(`test kit: ${registered.description}`);
  const clientId = registered.client.clientId;
  const approved = await approveAuthorization(env, {
    username,
    password: PASSWORD,
    // Its own source, so a test's deliberate failed sign-ins do not throttle the kit.
    sourceIp: `kit-${randomBytes(4).toString('hex')}`,
    clientId,
    redirectUri: REDIRECT,
    codeChallenge: createHash('sha256').update(VERIFIER).digest('base64url'),
    codeChallengeMethod: 'S256',
    resource: 'http://127.0.0.1:9/mcp',
    scope: opts.scope,
  });
  const issued = exchangeToken(env, { grantType: 'authorization_code', clientId, code: approved.code, redirectUri: REDIRECT, codeVerifier: VERIFIER, resource: 'http://127.0.0.1:9/mcp' });
  if (!issued.ok) throw new Error(`test kit: ${issued.error}`);
  if (issued.tokens.scope !== opts.scope) throw new Error(`test kit: asked for ${opts.scope}, got ${issued.tokens.scope}`);
  return issued.tokens.accessToken;
}
