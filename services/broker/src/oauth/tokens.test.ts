// Guards the OAuth grant lifecycle on a real oauth.db: codes are single-use and bound to client, redirect URI, PKCE and resource; a replayed code or a reused refresh token revokes its whole family; tokens expire, carry their audience and are stored only as hashes.
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readAppErrorData, type ExchangeTokenResult, type IssuedTokens } from '@terminal-mcp/contract';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { configSchema } from '../config/schema.js';
import { openStore, type SqliteDatabase } from '../effects/store/database.js';
import { oauthStore, oauthStoreDefinition } from '../effects/store/oauth-store.js';
import { webauthStore, webauthStoreDefinition } from '../effects/store/webauth-store.js';
import { createAccount } from '../webauth/accounts.js';
import { webauthEnv } from '../webauth/env.js';
import { listClients, listGrants, revokeClient, revokeUser } from './admin.js';
import { approveAuthorization } from './authorize.js';
import { describeAuthorization, MAX_CLIENTS, registerClient } from './clients.js';
import { oauthEnv, type OAuthLoginEnv } from './env.js';
import { exchangeToken, revokeToken, verifyAccessToken } from './tokens.js';

const RESOURCE = 'https://observer.example.com/mcp';
const REDIRECT = 'https://claude.ai/api/mcp/auth_callback';
const PASSWORD = 'correct horse battery staple';
const VERIFIER = 'v'.repeat(20) + 'erifier-with-enough-entropy-0123456789';
const CHALLENGE = createHash('sha256').update(VERIFIER).digest('base64url');

let root: string;
let oauthDb: SqliteDatabase;
let webauthDb: SqliteDatabase;
let clock: number;
let env: OAuthLoginEnv;

function makeEnv(config = configSchema.parse({ observer: { oauth: { access_token_ttl_seconds: 3600 } } })): OAuthLoginEnv {
  const log = pino({ level: 'silent' });
  const now = () => clock;
  return { ...oauthEnv({ store: oauthStore(oauthDb), config, log, now }), webauth: webauthEnv({ store: webauthStore(webauthDb), stateDir: join(root, 'state'), log, now }) };
}

beforeEach(async () => {
  root = mkdtempSync(join(tmpdir(), 'tmcp-oauth-'));
  oauthDb = openStore(join(root, 'state'), oauthStoreDefinition);
  webauthDb = openStore(join(root, 'state'), webauthStoreDefinition);
  clock = Date.UTC(2025, 0, 1);
  env = makeEnv();
  expect(await createAccount(env.webauth, 'alice', PASSWORD)).toMatchObject({ ok: true });
});
afterEach(() => {
  oauthDb.close();
  webauthDb.close();
  rmSync(root, { recursive: true, force: true });
});

function register(redirectUris = [REDIRECT]): string {
  const r = registerClient(env, { redirectUris, clientName: 'Claude', tokenEndpointAuthMethod: 'none' });
  if (!r.ok) throw new Error(r.description);
  return r.client.clientId;
}

async function approve(clientId: string, overrides: Partial<Parameters<typeof approveAuthorization>[1]> = {}): Promise<string> {
  const r = await approveAuthorization(env, {
    username: 'alice',
    password: PASSWORD,
    sourceIp: '127.0.0.1',
    clientId,
    redirectUri: REDIRECT,
    codeChallenge: CHALLENGE,
    codeChallengeMethod: 'S256',
    resource: RESOURCE,
    ...overrides,
  });
  return r.code;
}

const redeem = (clientId: string, code: string, overrides: Record<string, string> = {}) =>
  exchangeToken(env, { grantType: 'authorization_code', clientId, code, redirectUri: REDIRECT, codeVerifier: VERIFIER, resource: RESOURCE, ...overrides });

const refresh = (clientId: string, refreshToken: string) => exchangeToken(env, { grantType: 'refresh_token', clientId, refreshToken });

function tokensOf(r: ExchangeTokenResult): IssuedTokens {
  if (!r.ok) throw new Error(`${r.error}: ${r.description}`);
  return r.tokens;
}

const users = () => env.webauth.store;
const verify = (token: string, resource = RESOURCE) => verifyAccessToken(env, users(), { token, resource });
function verifyCode(token: string, resource = RESOURCE): string | undefined {
  try {
    verify(token, resource);
    return undefined;
  } catch (err) {
    return readAppErrorData(err)?.code;
  }
}

describe('registration', () => {
  it.each([
    ['https://claude.ai/api/mcp/auth_callback', true],
    ['https://claude.com/api/mcp/auth_callback', true],
    ['http://127.0.0.1:43123/callback', true],
    ['http://localhost:6274/oauth/callback', true],
    ['http://[::1]:9/cb', true],
    ['https://claude.ai/api/mcp/auth_callback?x=1', false],
    ['https://evil.example/api/mcp/auth_callback', false],
    ['http://claude.ai/api/mcp/auth_callback', false],
    ['https://127.0.0.1:43123/callback', false],
    ['http://127.0.0.1.evil.example:80/cb', false],
    ['http://user@127.0.0.1:1/cb', false],
    ['http://127.0.0.1:1/cb#frag', false],
    ['javascript:alert(1)', false],
  ])('redirect URI %s allowed: %s', (uri, allowed) => {
    const r = registerClient(env, { redirectUris: [uri], tokenEndpointAuthMethod: 'none' });
    expect(r.ok).toBe(allowed);
    if (!r.ok) expect(r.error).toBe('invalid_redirect_uri');
  });

  it('refuses loopback URIs when the operator turns them off, and keeps client names tidy', () => {
    env = makeEnv(configSchema.parse({ observer: { oauth: { allow_loopback_redirect_uris: false } } }));
    expect(registerClient(env, { redirectUris: ['http://127.0.0.1:1/cb'], tokenEndpointAuthMethod: 'none' })).toMatchObject({ ok: false });
    const r = registerClient(env, { redirectUris: [REDIRECT], clientName: 'Cl\u001b[31maude\n\u202e', tokenEndpointAuthMethod: 'client_secret_basic' });
    expect(r).toMatchObject({ ok: true, client: { clientName: 'Cl [31maude', tokenEndpointAuthMethod: 'client_secret_basic' } });
    expect(r.ok && r.client.clientSecret).toMatch(/^tmcp_cs_/);
  });

  it('caps stored clients without letting a flood evict a fresh or approved registration', async () => {
    const approved = register();
    await approve(approved);
    for (let i = 1; i < MAX_CLIENTS; i++) register();
    // Full, and every never-approved client is younger than the approval window.
    expect(registerClient(env, { redirectUris: [REDIRECT], tokenEndpointAuthMethod: 'none' })).toMatchObject({ ok: false, error: 'temporarily_unavailable' });
    clock += 16 * 60_000;
    const fresh = register();
    expect(describeAuthorization(env, { clientId: fresh, redirectUri: REDIRECT }).ok).toBe(true);
    expect(describeAuthorization(env, { clientId: approved, redirectUri: REDIRECT }).ok).toBe(true);
    expect(listClients(env)).toHaveLength(MAX_CLIENTS);
  });

  it('checks redirect URIs of the authorization request by exact match', () => {
    const clientId = register();
    expect(describeAuthorization(env, { clientId, redirectUri: REDIRECT })).toMatchObject({ ok: true, clientName: 'Claude' });
    expect(describeAuthorization(env, { clientId, redirectUri: `${REDIRECT}/` })).toMatchObject({ ok: false, error: 'invalid_redirect_uri' });
    expect(describeAuthorization(env, { clientId: 'nope', redirectUri: REDIRECT })).toMatchObject({ ok: false, error: 'invalid_client' });
  });
});

describe('authorization codes', () => {
  it('issues a code only for the right password, and stores no secret in the clear', async () => {
    const clientId = register();
    await expect(approve(clientId, { password: 'wrong password here' })).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
    clock += 60_000; // past the IP throttle delay of the failure
    const code = await approve(clientId);
    const tokens = tokensOf(await redeem(clientId, code));
    const dump = JSON.stringify([
      oauthDb.prepare('SELECT * FROM codes').all(),
      oauthDb.prepare('SELECT * FROM tokens').all(),
      oauthDb.prepare('SELECT * FROM clients').all(),
    ]);
    for (const secret of [code, tokens.accessToken, tokens.refreshToken]) expect(dump).not.toContain(secret);
    expect(verify(tokens.accessToken)).toMatchObject({ user: { username: 'alice' }, clientId, clientName: 'Claude', scopes: ['observer:read'] });
  });

  it('refuses a request for an unregistered redirect URI before asking for the password', async () => {
    const clientId = register();
    await expect(approve(clientId, { redirectUri: 'https://claude.ai/other' })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(approve(clientId, { resource: 'not a uri' })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });

  it('refuses a code for another client, redirect URI, verifier or resource — and burns it', async () => {
    const clientId = register();
    const other = register();
    const cases: [Record<string, string>, string, string][] = [
      [{ redirectUri: 'https://claude.com/api/mcp/auth_callback' }, clientId, 'invalid_grant'],
      [{ codeVerifier: 'x'.repeat(43) }, clientId, 'invalid_grant'],
      [{ codeVerifier: CHALLENGE }, clientId, 'invalid_grant'], // "plain": the challenge itself as verifier
      [{ resource: 'https://other.example.com/mcp' }, clientId, 'invalid_target'],
      [{}, other, 'invalid_grant'],
    ];
    for (const [overrides, redeemer, error] of cases) {
      const code = await approve(clientId);
      expect(await redeem(redeemer, code, overrides)).toMatchObject({ ok: false, error });
      // Burnt: even the right request fails now.
      expect(await redeem(clientId, code)).toMatchObject({ ok: false, error: 'invalid_grant' });
    }
  });

  it('expires codes after the configured lifetime', async () => {
    const clientId = register();
    const code = await approve(clientId);
    clock += 60_001;
    expect(await redeem(clientId, code)).toMatchObject({ ok: false, error: 'invalid_grant', description: 'authorization code expired' });
  });

  it('revokes every token issued from a code that is replayed', async () => {
    const clientId = register();
    const code = await approve(clientId);
    const first = tokensOf(await redeem(clientId, code));
    expect(verifyCode(first.accessToken)).toBeUndefined();
    expect(await redeem(clientId, code)).toMatchObject({ ok: false, error: 'invalid_grant' });
    expect(verifyCode(first.accessToken)).toBe('UNAUTHENTICATED');
    expect(await refresh(clientId, first.refreshToken)).toMatchObject({ ok: false, error: 'invalid_grant' });
  });
});

describe('tokens', () => {
  it('rotates refresh tokens, and a reused one revokes the whole family', async () => {
    const clientId = register();
    const first = tokensOf(await redeem(clientId, await approve(clientId)));
    const second = tokensOf(await refresh(clientId, first.refreshToken));
    expect(second.refreshToken).not.toBe(first.refreshToken);
    const third = tokensOf(await refresh(clientId, second.refreshToken));
    expect(verifyCode(third.accessToken)).toBeUndefined();

    // An attacker replays the first refresh token: refused, and everything of the family dies.
    expect(await refresh(clientId, first.refreshToken)).toMatchObject({ ok: false, error: 'invalid_grant' });
    expect(verifyCode(third.accessToken)).toBe('UNAUTHENTICATED');
    expect(await refresh(clientId, third.refreshToken)).toMatchObject({ ok: false, error: 'invalid_grant' });

    // Another grant of the same client and user is unaffected.
    const other = tokensOf(await redeem(clientId, await approve(clientId)));
    expect(verifyCode(other.accessToken)).toBeUndefined();
  });

  it('accepts an access token only for its own resource and only until it expires', async () => {
    const clientId = register();
    const t = tokensOf(await redeem(clientId, await approve(clientId)));
    expect(verifyCode(t.accessToken, 'https://other.example.com/mcp')).toBe('UNAUTHENTICATED');
    expect(verifyCode(t.accessToken, `${RESOURCE}/`)).toBe('UNAUTHENTICATED');
    expect(verifyCode(t.refreshToken)).toBe('UNAUTHENTICATED');
    clock += 3600_000 - 1;
    expect(verifyCode(t.accessToken)).toBeUndefined();
    clock += 1;
    expect(verifyCode(t.accessToken)).toBe('UNAUTHENTICATED');
    // The refresh token outlives it (30 days) and still works.
    expect(await refresh(clientId, t.refreshToken)).toMatchObject({ ok: true });
    clock += 30 * 24 * 3600_000;
    const grantsBefore = listGrants(env).length;
    expect(grantsBefore).toBe(0);
  });

  it('authenticates confidential clients and refuses public ones presenting a secret', async () => {
    const r = registerClient(env, { redirectUris: [REDIRECT], tokenEndpointAuthMethod: 'client_secret_post' });
    if (!r.ok) throw new Error('registration failed');
    const { clientId, clientSecret } = r.client;
    const code = await approve(clientId);
    expect(await redeem(clientId, code, { clientSecret: 'tmcp_cs_wrong' })).toMatchObject({ ok: false, error: 'invalid_client' });
    expect(await redeem(clientId, code, { clientSecret: clientSecret! })).toMatchObject({ ok: true });
    const pub = register();
    expect(await redeem(pub, await approve(pub), { clientSecret: 'anything' })).toMatchObject({ ok: false, error: 'invalid_client' });
  });

  it('revokes by RFC 7009 request (own tokens only), by client and by user', async () => {
    const clientId = register();
    const other = register();
    const a = tokensOf(await redeem(clientId, await approve(clientId)));
    expect(revokeToken(env, { clientId: other, token: a.refreshToken })).toEqual({ ok: true });
    expect(verifyCode(a.accessToken)).toBeUndefined();
    expect(revokeToken(env, { clientId, token: a.refreshToken })).toEqual({ ok: true });
    expect(verifyCode(a.accessToken)).toBe('UNAUTHENTICATED');
    expect(revokeToken(env, { clientId, token: 'tmcp_rt_unknown' })).toEqual({ ok: true });

    const b = tokensOf(await redeem(clientId, await approve(clientId)));
    const c = tokensOf(await redeem(other, await approve(other)));
    expect(listGrants(env).map((g) => g.clientId).sort()).toEqual([clientId, other].sort());
    expect(revokeUser(env, 'alice', 'test')).toEqual({ revokedGrants: 2, revokedClient: false });
    expect([verifyCode(b.accessToken), verifyCode(c.accessToken)]).toEqual(['UNAUTHENTICATED', 'UNAUTHENTICATED']);

    const d = tokensOf(await redeem(clientId, await approve(clientId)));
    expect(revokeClient(env, clientId, 'test')).toEqual({ revokedGrants: 1, revokedClient: true });
    expect(verifyCode(d.accessToken)).toBe('UNAUTHENTICATED');
    await expect(approve(clientId)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect(listClients(env).find((x) => x.clientId === clientId)?.revokedAt).not.toBeNull();
  });
});

describe('two authorization servers over one oauth.db (observer and gateway)', () => {
  const CHATGPT = 'https://chatgpt.com/connector/oauth/cb_123';
  const GATEWAY_RESOURCE = 'https://gateway.example.com/mcp';
  const gatewayEnv = (): OAuthLoginEnv => ({ ...oauthEnv({ store: oauthStore(oauthDb), config: configSchema.parse({}), log: pino({ level: 'silent' }), now: () => clock, server: 'gateway' }), webauth: env.webauth });

  async function gatewayTokens(scope: string | undefined, redirectUri = CHATGPT): Promise<IssuedTokens> {
    const g = gatewayEnv();
    const r = registerClient(g, { redirectUris: [redirectUri], clientName: 'ChatGPT', tokenEndpointAuthMethod: 'none' });
    if (!r.ok) throw new Error(r.description);
    const { code } = await approveAuthorization(g, {
      username: 'alice',
      password: PASSWORD,
      sourceIp: '127.0.0.1',
      clientId: r.client.clientId,
      redirectUri,
      codeChallenge: CHALLENGE,
      codeChallengeMethod: 'S256',
      resource: GATEWAY_RESOURCE,
      ...(scope === undefined ? {} : { scope }),
    });
    return tokensOf(exchangeToken(g, { grantType: 'authorization_code', clientId: r.client.clientId, code, redirectUri, codeVerifier: VERIFIER, resource: GATEWAY_RESOURCE }));
  }

  it('registers ChatGPT callbacks at the gateway only, and a gateway client is no client of the observer', () => {
    expect(registerClient(env, { redirectUris: [CHATGPT], tokenEndpointAuthMethod: 'none' })).toMatchObject({ ok: false, error: 'invalid_redirect_uri' });
    const g = gatewayEnv();
    const r = registerClient(g, { redirectUris: [CHATGPT, 'https://chatgpt.com/connector_platform_oauth_redirect'], tokenEndpointAuthMethod: 'none' });
    if (!r.ok) throw new Error(r.description);
    expect(r.client.scope).toBe('terminal:read terminal:write terminal:input');
    expect(describeAuthorization(g, { clientId: r.client.clientId, redirectUri: CHATGPT }).ok).toBe(true);
    expect(describeAuthorization(env, { clientId: r.client.clientId, redirectUri: CHATGPT })).toMatchObject({ ok: false, error: 'invalid_client' });
    expect(registerClient(g, { redirectUris: [REDIRECT], tokenEndpointAuthMethod: 'none' })).toMatchObject({ ok: false, error: 'invalid_redirect_uri' });
  });

  it('reads the gateway.oauth block: the per-connector form and loopback can be turned off, exact URIs added', () => {
    const config = configSchema.parse({
      gateway: { oauth: { allow_chatgpt_connector_redirects: false, allow_loopback_redirect_uris: false, redirect_uri_allowlist: ['https://chat.example.com/cb'] } },
    });
    const g: OAuthLoginEnv = { ...oauthEnv({ store: oauthStore(oauthDb), config, log: pino({ level: 'silent' }), now: () => clock, server: 'gateway' }), webauth: env.webauth };
    for (const uri of [CHATGPT, 'http://127.0.0.1:5/cb', 'https://chatgpt.com/connector_platform_oauth_redirect']) {
      expect(registerClient(g, { redirectUris: [uri], tokenEndpointAuthMethod: 'none' }), uri).toMatchObject({ ok: false, error: 'invalid_redirect_uri' });
    }
    expect(registerClient(g, { redirectUris: ['https://chat.example.com/cb'], tokenEndpointAuthMethod: 'none' })).toMatchObject({ ok: true });
  });

  it('grants the gateway\'s scopes: all when nothing known is asked, reading always, write and input only when asked', async () => {
    expect((await gatewayTokens(undefined)).scope).toBe('terminal:read terminal:write terminal:input');
    expect((await gatewayTokens('terminal:read')).scope).toBe('terminal:read');
    expect((await gatewayTokens('terminal:input')).scope).toBe('terminal:read terminal:input');
    expect((await gatewayTokens('terminal:write')).scope).toBe('terminal:read terminal:write');
    expect((await gatewayTokens('observer:read')).scope).toBe('terminal:read terminal:write terminal:input');
  });

  it('refuses a gateway token at the observer and an observer token at the gateway, even for the same resource URL', async () => {
    const gw = await gatewayTokens('terminal:read', 'http://127.0.0.1:5/cb');
    expect(verifyAccessToken(gatewayEnv(), users(), { token: gw.accessToken, resource: GATEWAY_RESOURCE })).toMatchObject({ scopes: ['terminal:read'] });
    expect(() => verifyAccessToken(env, users(), { token: gw.accessToken, resource: GATEWAY_RESOURCE })).toThrow(/another resource/);
    const clientId = register();
    const obs = tokensOf(await redeem(clientId, await approve(clientId)));
    expect(() => verifyAccessToken(gatewayEnv(), users(), { token: obs.accessToken, resource: RESOURCE })).toThrow(/another resource/);
    // A refresh at the wrong server is refused too.
    expect(exchangeToken(gatewayEnv(), { grantType: 'refresh_token', clientId, refreshToken: obs.refreshToken })).toMatchObject({ ok: false, error: 'invalid_client' });
  });
});
