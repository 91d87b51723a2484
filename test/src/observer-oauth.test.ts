// Guards the observer's OAuth 2.1 boundary end to end (real broker, private tmux server, real git repo, oauth4webapi + the MCP SDK client): only a token the operator approved, with PKCE S256, for exactly this resource, reaches the seventeen read tools — and every attack on the flow fails.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import Database from 'better-sqlite3';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createBrokerClient } from '@terminal-mcp/broker-client';
import { parseRows } from '@terminal-mcp/gateway';
import { createObserverLogger, startObserverHttp, type RunningObserverHttp } from '@terminal-mcp/observer';
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readAnswerOf } from './helpers/answer-text.js';
import { startBrokerProcess, type BrokerProcess } from './helpers/broker-process.js';
import { createOperatorAccount } from './helpers/operator-account.js';
import { repoPath } from './helpers/repo.js';
import { makeSourceRepo, type SourceRepo } from './helpers/source-repo.js';
import { startTmuxServer, type TmuxTestServer } from './helpers/tmux-server.js';
import { waitFor } from './helpers/wait-for.js';
import { APPS_HOST_OPTIONS } from './helpers/apps-host.js';

const SESSION = 'claude-observed';
const MARK = 'observer-mark-31c7';
/** A second session that prints SINCE_MARK on Enter (terminal_read_since). */
const TICKER = 'claude-ticker';
const SINCE_MARK = 'since-mark-5e20';
const USER = 'alice';
const PASSWORD = 'observer e2e passphrase 42';
const REDIRECT = 'http://127.0.0.1:9/callback';
const INSECURE = { [oauth.allowInsecureRequests]: true } as const;

let tmux: TmuxTestServer;
let base: string;
let repo: SourceRepo;
let broker: BrokerProcess;
let obs: RunningObserverHttp;
let as: oauth.AuthorizationServer;
const clients: Client[] = [];

async function waitForPaneText(session: string, mark: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if ((await tmux.tmux(['capture-pane', '-p', '-t', `${session}:`])).includes(mark)) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${mark} never appeared in ${session}`);
}

function brokerConfig(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    allowed_session_patterns: ['claude-*'],
    log_level: 'warn',
    // For terminal_read_since, which hosted clients call over this OAuth HTTP path.
    transcripts: { enabled: true },
    observer: { source_roots: [{ name: 'demo', path: repo.root }], ...extra },
  };
}

interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** node:http, not fetch: fetch will not let a test forge the Host header. */
function raw(o: RunningObserverHttp, opts: { method?: string; path: string; headers?: Record<string, string>; body?: string }): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port: o.port, method: opts.method ?? 'GET', path: opts.path, headers: { host: `127.0.0.1:${o.port}`, ...opts.headers } },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end(opts.body);
  });
}

async function discover(o: RunningObserverHttp): Promise<oauth.AuthorizationServer> {
  const issuer = new URL(o.publicUrl);
  return oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...INSECURE }));
}

async function register(server: oauth.AuthorizationServer, redirectUris = [REDIRECT]): Promise<oauth.Client> {
  const metadata = { redirect_uris: redirectUris, client_name: 'Observer E2E', token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'] };
  return oauth.processDynamicClientRegistrationResponse(await oauth.dynamicClientRegistrationRequest(server, metadata, INSECURE)) as Promise<oauth.Client>;
}

interface AuthorizeRequest {
  client: oauth.Client;
  verifier: string;
  state: string;
  url: URL;
}

async function authorizeRequest(o: RunningObserverHttp, client: oauth.Client, params: Record<string, string | undefined> = {}): Promise<AuthorizeRequest> {
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const url = new URL(o.urls.authorizationEndpoint);
  const all: Record<string, string | undefined> = {
    response_type: 'code',
    client_id: client.client_id,
    redirect_uri: REDIRECT,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    resource: o.mcpUrl,
    scope: 'observer:read',
    state,
    ...params,
  };
  for (const [k, v] of Object.entries(all)) if (v !== undefined) url.searchParams.set(k, v);
  return { client, verifier, state, url };
}

interface ConsentPage {
  status: number;
  html: string;
  formToken: string | undefined;
  cookie: string | undefined;
  location: string | null;
  headers: Headers;
}

async function openConsent(req: AuthorizeRequest, cookie?: string): Promise<ConsentPage> {
  const res = await fetch(req.url, { redirect: 'manual', headers: cookie ? { cookie } : {} });
  const html = await res.text();
  const setCookie = res.headers.get('set-cookie');
  return {
    status: res.status,
    html,
    formToken: /name="form_token" value="([^"]+)"/.exec(html)?.[1],
    cookie: setCookie ? setCookie.split(';')[0] : cookie,
    location: res.headers.get('location'),
    headers: res.headers,
  };
}

async function submitConsent(o: RunningObserverHttp, page: ConsentPage, fields: Record<string, string>): Promise<Response> {
  return fetch(o.urls.authorizationEndpoint, {
    method: 'POST',
    redirect: 'manual',
    // What a browser sends for a form on our page.
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: o.publicUrl, ...(page.cookie ? { cookie: page.cookie } : {}) },
    body: new URLSearchParams({ form_token: page.formToken ?? '', ...fields }),
  });
}

/** GET the login page, sign in, approve; returns the callback parameters. */
async function approve(o: RunningObserverHttp, req: AuthorizeRequest): Promise<URLSearchParams> {
  const page = await openConsent(req);
  expect(page.status, page.html).toBe(200);
  const res = await submitConsent(o, page, { username: USER, password: PASSWORD, decision: 'approve' });
  expect(res.status, await res.clone().text()).toBe(303);
  return oauth.validateAuthResponse(as, req.client, new URL(res.headers.get('location')!), req.state);
}

async function redeem(o: RunningObserverHttp, req: AuthorizeRequest, callback: URLSearchParams, overrides: { redirectUri?: string; resource?: string; verifier?: string } = {}): Promise<Response> {
  return oauth.authorizationCodeGrantRequest(as, req.client, oauth.None(), callback, overrides.redirectUri ?? REDIRECT, overrides.verifier ?? req.verifier, {
    additionalParameters: { resource: overrides.resource ?? o.mcpUrl },
    ...INSECURE,
  });
}

async function fullFlow(o: RunningObserverHttp, client: oauth.Client): Promise<oauth.TokenEndpointResponse> {
  const req = await authorizeRequest(o, client);
  const callback = await approve(o, req);
  return oauth.processAuthorizationCodeResponse(as, client, await redeem(o, req, callback));
}

async function mcpClient(o: RunningObserverHttp, accessToken: string): Promise<Client> {
  const client = new Client({ name: 'observer-e2e', version: '0.0.0' }, APPS_HOST_OPTIONS);
  await client.connect(new StreamableHTTPClientTransport(new URL(o.mcpUrl), { requestInit: { headers: { authorization: `Bearer ${accessToken}` } } }));
  clients.push(client);
  return client;
}

const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
});
const mcpPost = (o: RunningObserverHttp, token?: string) =>
  raw(o, { method: 'POST', path: '/mcp', headers: { ...MCP_HEADERS, ...(token ? { authorization: `Bearer ${token}` } : {}) }, body: INITIALIZE });

const textOf = (r: CallToolResult) => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');

/** Actors of the broker's read-audit rows for a tool (the audit log flushes reads every
 * 200 ms, so this waits for the row). */
async function auditedReadActors(tool: string): Promise<string[]> {
  const db = new Database(join(broker.stateDir, 'audit.db'), { readonly: true });
  try {
    const deadline = Date.now() + 5_000;
    for (;;) {
      const rows = db.prepare('SELECT actor FROM read_audit WHERE tool = ?').all(tool) as { actor: string }[];
      if (rows.length > 0 || Date.now() > deadline) return rows.map((r) => r.actor);
      await new Promise((r) => setTimeout(r, 100));
    }
  } finally {
    db.close();
  }
}

beforeAll(async () => {
  tmux = await startTmuxServer();
  await tmux.newSession(SESSION, `echo ${MARK}; exec sleep 3600`, { width: 100, height: 30 });
  await waitForPaneText(SESSION, MARK);
  // Created before the broker, so no session changes while its watchers identify.
  await tmux.newSession(TICKER, `sh -c 'read go; echo ${SINCE_MARK}; exec sleep 3600'`, { width: 100, height: 30 });
  base = mkdtempSync(join(tmpdir(), 'tmcp-obs-e2e-'));
  repo = makeSourceRepo(base);
  broker = await startBrokerProcess({ tmuxSocket: tmux.socketName, config: brokerConfig() });
  await createOperatorAccount(broker.env, USER, PASSWORD);
  obs = await startObserverHttp({ port: 0, env: broker.env, log: createObserverLogger('silent'), registrationLimits: { perSource: 1000 } });
  as = await discover(obs);
});

afterAll(async () => {
  await Promise.allSettled(clients.map((c) => c.close()));
  await obs?.close();
  await broker?.stop();
  await tmux?.kill();
  if (base) rmSync(base, { recursive: true, force: true });
});

describe('the full OAuth flow, as a client sees it', () => {
  it('discovers both metadata documents at the root, naming this server as issuer and /mcp as the resource', async () => {
    expect(as).toMatchObject({
      issuer: obs.publicUrl,
      authorization_endpoint: `${obs.publicUrl}/authorize`,
      token_endpoint: `${obs.publicUrl}/token`,
      registration_endpoint: `${obs.publicUrl}/register`,
      revocation_endpoint: `${obs.publicUrl}/revoke`,
      code_challenge_methods_supported: ['S256'],
      response_types_supported: ['code'],
    });
    for (const path of ['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource']) {
      const res = await fetch(`${obs.publicUrl}${path}`);
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ resource: obs.mcpUrl, authorization_servers: [obs.publicUrl], bearer_methods_supported: ['header'] });
    }
    const rs = await oauth.processResourceDiscoveryResponse(new URL(obs.mcpUrl), await oauth.resourceDiscoveryRequest(new URL(obs.mcpUrl), INSECURE));
    expect(rs.authorization_servers).toEqual([obs.publicUrl]);
  });

  it('registers, signs in on the consent page, exchanges the code with PKCE and resource, calls tools, and rotates the refresh token', async () => {
    const client = await register(as);
    expect(client).toMatchObject({ redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' });
    expect(client.client_secret).toBeUndefined();

    const req = await authorizeRequest(obs, client);
    const page = await openConsent(req);
    expect(page.status).toBe(200);
    expect(page.html).toContain('Observer E2E');
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(page.cookie).toMatch(/^tmcp_authz=/);
    const posted = await submitConsent(obs, page, { username: USER, password: PASSWORD, decision: 'approve' });
    expect(posted.status).toBe(303);
    const callback = oauth.validateAuthResponse(as, client, new URL(posted.headers.get('location')!), req.state);
    expect(callback.get('iss')).toBe(obs.publicUrl);

    const tokens = await oauth.processAuthorizationCodeResponse(as, client, await redeem(obs, req, callback));
    expect(tokens).toMatchObject({ token_type: 'bearer', expires_in: 3600, scope: 'observer:read' });
    expect(tokens.refresh_token).toBeDefined();

    const mcp = await mcpClient(obs, tokens.access_token);
    const { tools } = await mcp.listTools();
    expect(tools).toHaveLength(18); // 15 terminal and source tools, note_search, note_get, terminal_read_since
    expect(tools.every((t) => t.annotations?.readOnlyHint === true)).toBe(true);
    expect(mcp.getInstructions()).toMatch(/untrusted data/);

    const sessions = (await mcp.callTool({ name: 'terminal_list_sessions', arguments: {} })) as CallToolResult;
    expect(sessions.isError).toBeFalsy();
    expect(textOf(sessions)).toContain(SESSION);
    const tail = (await mcp.callTool({ name: 'terminal_tail', arguments: { session: SESSION, lines: 20 } })) as CallToolResult;
    expect(textOf(tail)).toContain(MARK);
    // The broker's read audit names the operator who approved the token.
    expect(await auditedReadActors('terminal_tail')).toContain(`observer:${USER}`);
    const projects = (await mcp.callTool({ name: 'source_list_projects', arguments: {} })) as CallToolResult;
    expect(parseRows(textOf(projects), 'name')).toEqual([expect.objectContaining({ name: 'demo', available: true, branch: 'main' })]);
    // Source reads are audited too, with the same actor.
    expect(await auditedReadActors('source.listProjects')).toContain(`observer:${USER}`);

    // Refresh rotation: the new pair works, the old refresh token is spent.
    const refreshed = await oauth.processRefreshTokenResponse(
      as,
      client,
      await oauth.refreshTokenGrantRequest(as, client, oauth.None(), tokens.refresh_token!, { additionalParameters: { resource: obs.mcpUrl }, ...INSECURE }),
    );
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
    expect(refreshed.access_token).not.toBe(tokens.access_token);
    expect((await mcpPost(obs, refreshed.access_token)).status).toBe(200);

    // Reusing the spent refresh token: refused, and the whole family is revoked.
    const reuse = await oauth.refreshTokenGrantRequest(as, client, oauth.None(), tokens.refresh_token!, INSECURE);
    expect(reuse.status).toBe(400);
    expect(await reuse.json()).toMatchObject({ error: 'invalid_grant' });
    expect((await mcpPost(obs, refreshed.access_token)).status).toBe(401);
    expect((await mcpPost(obs, tokens.access_token)).status).toBe(401);
    const afterReuse = await oauth.refreshTokenGrantRequest(as, client, oauth.None(), refreshed.refresh_token!, INSECURE);
    expect(await afterReuse.json()).toMatchObject({ error: 'invalid_grant' });
  });

  it('reads output since a cursor with terminal_read_since over the OAuth HTTP path, audited under the operator', async () => {
    const tokens = await fullFlow(obs, await register(as));
    const mcp = await mcpClient(obs, tokens.access_token);
    // Recording starts on the broker's first registry pass; a tail then carries a cursor.
    const cursor = await waitFor('a cursor from terminal_tail', async () => {
      const tail = (await mcp.callTool({ name: 'terminal_tail', arguments: { session: TICKER, lines: 5 } })) as CallToolResult;
      return (tail.structuredContent as { cursor?: string } | undefined)?.cursor;
    });
    await tmux.tmux(['send-keys', '-t', `${TICKER}:`, 'Enter']);
    const since = await waitFor('the new line after the cursor', async () => {
      const r = (await mcp.callTool({ name: 'terminal_read_since', arguments: { session: TICKER, cursor } })) as CallToolResult;
      if (r.isError) throw new Error(`terminal_read_since failed: ${textOf(r)}`);
      const out = readAnswerOf(r);
      return out.text.includes(SINCE_MARK) && out;
    });
    expect(since.dropped).toBe(false);
    expect(since.cursor).not.toBe(cursor);
    expect(await auditedReadActors('terminal_read_since')).toContain(`observer:${USER}`);
  });

  it('revokes a grant through RFC 7009 /revoke', async () => {
    const client = await register(as);
    const tokens = await fullFlow(obs, client);
    expect((await mcpPost(obs, tokens.access_token)).status).toBe(200);
    await oauth.processRevocationResponse(await oauth.revocationRequest(as, client, oauth.None(), tokens.refresh_token!, INSECURE));
    expect((await mcpPost(obs, tokens.access_token)).status).toBe(401);
  });

  it('registers claude.ai\'s callback and a confidential client that authenticates with its secret', async () => {
    const res = await fetch(`${obs.publicUrl}/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: ['https://claude.ai/api/mcp/auth_callback'], client_name: 'Claude', token_endpoint_auth_method: 'client_secret_basic' }),
    });
    expect(res.status).toBe(201);
    const registered = (await res.json()) as oauth.Client & { client_secret: string };
    expect(registered.client_secret).toMatch(/^tmcp_cs_/);

    const client = await register(as);
    const confidential = (await oauth.processDynamicClientRegistrationResponse(
      await oauth.dynamicClientRegistrationRequest(as, { redirect_uris: [REDIRECT], token_endpoint_auth_method: 'client_secret_basic' }, INSECURE),
    )) as oauth.Client & { client_secret: string };
    const req = await authorizeRequest(obs, confidential);
    const callback = await approve(obs, req);
    const wrong = await oauth.authorizationCodeGrantRequest(as, confidential, oauth.ClientSecretBasic('tmcp_cs_wrong'), callback, REDIRECT, req.verifier, {
      additionalParameters: { resource: obs.mcpUrl },
      ...INSECURE,
    });
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toMatchObject({ error: 'invalid_client' });
    // The failed attempt burnt the code (single use whatever happens): start again.
    const req2 = await authorizeRequest(obs, confidential);
    const callback2 = await approve(obs, req2);
    const ok = await oauth.authorizationCodeGrantRequest(as, confidential, oauth.ClientSecretBasic(confidential.client_secret), callback2, REDIRECT, req2.verifier, {
      additionalParameters: { resource: obs.mcpUrl },
      ...INSECURE,
    });
    expect(ok.status).toBe(200);
    expect(client.client_id).not.toBe(confidential.client_id);
  });
});

describe('attacks on the authorization endpoint', () => {
  let client: oauth.Client;
  beforeAll(async () => {
    client = await register(as);
  });

  const errorOf = (page: ConsentPage) => (page.location ? Object.fromEntries(new URL(page.location).searchParams) : undefined);

  it('refuses plain PKCE and a missing challenge, back at the client\'s redirect URI with state and iss', async () => {
    const verifier = oauth.generateRandomCodeVerifier();
    const plain = await openConsent(await authorizeRequest(obs, client, { code_challenge: verifier, code_challenge_method: 'plain', state: 's1' }));
    expect(plain.status).toBe(303);
    expect(plain.location!.startsWith(REDIRECT)).toBe(true);
    expect(errorOf(plain)).toMatchObject({ error: 'invalid_request', state: 's1', iss: obs.publicUrl });
    expect(errorOf(plain)!.error_description).toMatch(/S256/);
    const defaultPlain = await openConsent(await authorizeRequest(obs, client, { code_challenge: 'A'.repeat(43), code_challenge_method: undefined }));
    expect(errorOf(defaultPlain)).toMatchObject({ error: 'invalid_request' });
    const missing = await openConsent(await authorizeRequest(obs, client, { code_challenge: undefined, code_challenge_method: undefined }));
    expect(errorOf(missing)).toMatchObject({ error: 'invalid_request' });
    expect(missing.formToken).toBeUndefined();
  });

  it('shows an error page, and redirects nowhere, for an unregistered redirect URI or client', async () => {
    for (const params of [{ redirect_uri: 'https://evil.example/cb' }, { redirect_uri: `${REDIRECT}/` }, { client_id: 'tmcp_c_unknown' }]) {
      const page = await openConsent(await authorizeRequest(obs, client, params));
      expect(page.status).toBe(400);
      expect(page.location).toBeNull();
      expect(page.formToken).toBeUndefined();
    }
  });

  it('requires resource and refuses another server\'s resource (invalid_target)', async () => {
    expect(errorOf(await openConsent(await authorizeRequest(obs, client, { resource: undefined })))).toMatchObject({ error: 'invalid_request' });
    expect(errorOf(await openConsent(await authorizeRequest(obs, client, { resource: 'https://other.example.com/mcp' })))).toMatchObject({ error: 'invalid_target' });
    expect(errorOf(await openConsent(await authorizeRequest(obs, client, { response_type: 'token' })))).toMatchObject({ error: 'unsupported_response_type' });
    const dup = await fetch(`${(await authorizeRequest(obs, client)).url.href}&client_id=${client.client_id}`, { redirect: 'manual' });
    expect(dup.status).toBe(400);
  });

  it('refuses a form without this browser\'s cookie, a forged or reused form token, and honours Deny', async () => {
    const req = await authorizeRequest(obs, client);
    const page = await openConsent(req);
    const noCookie = await submitConsent(obs, { ...page, cookie: undefined }, { username: USER, password: PASSWORD, decision: 'approve' });
    expect(noCookie.status).toBe(400);
    expect(noCookie.headers.get('location')).toBeNull();

    const page2 = await openConsent(req);
    const forged = await submitConsent(obs, { ...page2, formToken: 'forged-token' }, { username: USER, password: PASSWORD, decision: 'approve' });
    expect(forged.status).toBe(400);

    const page3 = await openConsent(req);
    const denied = await submitConsent(obs, page3, { decision: 'deny' });
    expect(denied.status).toBe(303);
    expect(Object.fromEntries(new URL(denied.headers.get('location')!).searchParams)).toMatchObject({ error: 'access_denied', state: req.state });
    const reused = await submitConsent(obs, page3, { username: USER, password: PASSWORD, decision: 'approve' });
    expect(reused.status).toBe(400);
  });

  it('refuses a form posted from a foreign origin', async () => {
    const page = await openConsent(await authorizeRequest(obs, client));
    const res = await fetch(obs.urls.authorizationEndpoint, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://evil.example', cookie: page.cookie! },
      body: new URLSearchParams({ form_token: page.formToken!, username: USER, password: PASSWORD, decision: 'approve' }),
    });
    expect(res.status).toBe(403);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await res.text()).toContain('another website');
  });

  it('accepts Origin: null only on its own form as the browser marks it (Sec-Fetch-Site: same-origin), still with token and cookie', async () => {
    const post = (page: ConsentPage, headers: Record<string, string>) =>
      fetch(obs.urls.authorizationEndpoint, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'null', cookie: page.cookie!, ...headers },
        body: new URLSearchParams({ form_token: page.formToken!, decision: 'deny' }),
      });
    const req = await authorizeRequest(obs, client);
    const page = await openConsent(req);
    for (const site of ['same-site', 'cross-site', 'none']) expect((await post(page, { 'sec-fetch-site': site })).status).toBe(403);
    expect((await post(page, {})).status).toBe(403);
    expect((await post(page, { 'sec-fetch-site': 'same-origin', cookie: 'tmcp_authz=someone-elses-browser-nonce-0000000000000000000' })).status).toBe(400);
    const ok = await post(await openConsent(req), { 'sec-fetch-site': 'same-origin' });
    expect(ok.status).toBe(303);
  });
});

describe('attacks on the token endpoint', () => {
  let client: oauth.Client;
  beforeAll(async () => {
    client = await register(as);
  });

  it('refuses an unregistered redirect URI at registration', async () => {
    for (const uris of [['https://evil.example/callback'], ['https://claude.ai/api/mcp/auth_callback/../x'], [REDIRECT, 'http://attacker.example:8080/cb']]) {
      const res = await oauth.dynamicClientRegistrationRequest(as, { redirect_uris: uris, token_endpoint_auth_method: 'none' }, INSECURE);
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ error: 'invalid_redirect_uri' });
    }
  });

  it('refuses a different redirect URI at token time', async () => {
    const other = await register(as, [REDIRECT, 'http://127.0.0.1:10/other']);
    const req = await authorizeRequest(obs, other);
    const callback = await approve(obs, req);
    const res = await redeem(obs, req, callback, { redirectUri: 'http://127.0.0.1:10/other' });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: 'invalid_grant' });
  });

  it('refuses a wrong PKCE verifier and a token request for another resource', async () => {
    const req = await authorizeRequest(obs, client);
    const wrongVerifier = await redeem(obs, req, await approve(obs, req), { verifier: oauth.generateRandomCodeVerifier() });
    expect(await wrongVerifier.json()).toMatchObject({ error: 'invalid_grant' });
    const req2 = await authorizeRequest(obs, client);
    const otherResource = await redeem(obs, req2, await approve(obs, req2), { resource: 'https://other.example.com/mcp' });
    expect(await otherResource.json()).toMatchObject({ error: 'invalid_target' });
  });

  it('refuses a replayed code and revokes the tokens issued from it', async () => {
    const req = await authorizeRequest(obs, client);
    const callback = await approve(obs, req);
    const first = await oauth.processAuthorizationCodeResponse(as, client, await redeem(obs, req, callback));
    expect((await mcpPost(obs, first.access_token)).status).toBe(200);
    const replay = await redeem(obs, req, callback);
    expect(replay.status).toBe(400);
    expect(await replay.json()).toMatchObject({ error: 'invalid_grant' });
    expect((await mcpPost(obs, first.access_token)).status).toBe(401);
    const refresh = await oauth.refreshTokenGrantRequest(as, client, oauth.None(), first.refresh_token!, INSECURE);
    expect(await refresh.json()).toMatchObject({ error: 'invalid_grant' });
  });

  it('refuses grant types other than code and refresh, and unauthenticated clients', async () => {
    const password = await fetch(obs.urls.tokenEndpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'password', client_id: client.client_id, username: USER, password: PASSWORD }),
    });
    expect(await password.json()).toMatchObject({ error: 'unsupported_grant_type' });
    const noClient = await fetch(obs.urls.tokenEndpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: 'tmcp_rt_x' }),
    });
    expect(noClient.status).toBe(401);
  });
});

describe('the protected resource', () => {
  it('answers a request without a token with 401 and the resource metadata URL', async () => {
    const res = await mcpPost(obs);
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe(`Bearer resource_metadata="${obs.publicUrl}/.well-known/oauth-protected-resource/mcp", scope="observer:read"`);
    const get = await raw(obs, { path: '/mcp' });
    expect(get.status).toBe(401);
    const bogus = await mcpPost(obs, 'tmcp_at_not-a-real-token');
    expect(bogus.status).toBe(401);
    expect(bogus.headers['www-authenticate']).toContain('error="invalid_token"');
    expect(bogus.headers['www-authenticate']).toContain('resource_metadata=');
  });

  it('refuses a token issued for another resource (audience)', async () => {
    // Another resource server sharing this broker would get such a token; mint one the
    // way it would, straight over observer.sock, then present it here.
    const brokerClient = createBrokerClient({ role: 'observer', env: broker.env });
    const client = await register(as);
    const verifier = oauth.generateRandomCodeVerifier();
    const other = 'https://other.example.com/mcp';
    const { code } = await brokerClient.oauth.approveAuthorization.mutate({
      username: USER,
      password: PASSWORD,
      sourceIp: '127.0.0.1',
      clientId: client.client_id,
      redirectUri: REDIRECT,
      codeChallenge: await oauth.calculatePKCECodeChallenge(verifier),
      codeChallengeMethod: 'S256',
      resource: other,
    });
    const exchanged = await brokerClient.oauth.exchangeToken.mutate({ grantType: 'authorization_code', clientId: client.client_id, code, redirectUri: REDIRECT, codeVerifier: verifier, resource: other });
    if (!exchanged.ok) throw new Error(exchanged.description);
    const res = await mcpPost(obs, exchanged.tokens.accessToken);
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toContain('error="invalid_token"');
    // The same token is good for the resource it was issued for.
    expect(await brokerClient.oauth.verifyAccessToken.query({ token: exchanged.tokens.accessToken, resource: other })).toMatchObject({ user: { username: USER } });
  });

  it('refuses a wrong Host and a foreign Origin on every endpoint', async () => {
    const tokens = await fullFlow(obs, await register(as));
    for (const path of ['/mcp', '/token', '/authorize', '/.well-known/oauth-authorization-server']) {
      expect((await raw(obs, { path, headers: { host: 'evil.example' } })).status).toBe(403);
      expect((await raw(obs, { path, headers: { host: 'localhost:1' } })).status).toBe(403);
    }
    const rebinding = await raw(obs, { method: 'POST', path: '/mcp', headers: { ...MCP_HEADERS, host: 'attacker.example', authorization: `Bearer ${tokens.access_token}` }, body: INITIALIZE });
    expect(rebinding.status).toBe(403);
    const foreign = await raw(obs, { method: 'POST', path: '/mcp', headers: { ...MCP_HEADERS, origin: 'https://evil.example', authorization: `Bearer ${tokens.access_token}` }, body: INITIALIZE });
    expect(foreign.status).toBe(403);
    expect((await raw(obs, { method: 'POST', path: '/mcp', headers: { ...MCP_HEADERS, origin: obs.publicUrl, authorization: `Bearer ${tokens.access_token}` }, body: INITIALIZE })).status).toBe(200);
  });

  it('lets the operator list and revoke with terminal-mcp-observer-admin', async () => {
    const tokens = await fullFlow(obs, await register(as));
    const admin = (args: string[]) =>
      new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve, reject) => {
        const child = spawn(process.execPath, [repoPath('services/broker/dist/bin/observer-admin-cli.js'), ...args], { env: broker.env, stdio: ['ignore', 'pipe', 'pipe'] });
        let stdout = '';
        let stderr = '';
        child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
        child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
        child.on('error', reject);
        child.on('close', (status) => resolve({ status, stdout, stderr }));
      });
    const status = await admin(['status']);
    expect(status.status).toBe(0);
    expect(status.stdout).toMatch(/registered client\(s\)/);
    expect(status.stdout).toContain('"Observer E2E"');
    expect(status.stdout).toMatch(new RegExp(`\\b${USER}\\b`));
    expect((await mcpPost(obs, tokens.access_token)).status).toBe(200);

    const revoked = await admin(['revoke', USER]);
    expect(revoked).toMatchObject({ status: 0 });
    expect(revoked.stdout).toMatch(/grant\(s\) of user alice revoked/);
    expect((await mcpPost(obs, tokens.access_token)).status).toBe(401);
    expect(await admin(['revoke', `nobody-${randomUUID().slice(0, 8)}`])).toMatchObject({ status: 1 });
    expect(await admin(['frobnicate'])).toMatchObject({ status: 2 });
  });
});

describe('lifetimes and sign-in throttling (a broker with a 2 s access-token lifetime)', () => {
  let shortBroker: BrokerProcess;
  let shortObs: RunningObserverHttp;

  beforeAll(async () => {
    shortBroker = await startBrokerProcess({ tmuxSocket: tmux.socketName, config: brokerConfig({ oauth: { access_token_ttl_seconds: 2 } }) });
    await createOperatorAccount(shortBroker.env, USER, PASSWORD);
    shortObs = await startObserverHttp({ port: 0, env: shortBroker.env, log: createObserverLogger('silent'), registrationLimits: { perSource: 1000 } });
  });
  afterAll(async () => {
    await shortObs?.close();
    await shortBroker?.stop();
  });

  it('refuses an expired access token at /mcp while its refresh token still works', async () => {
    const shortAs = await discover(shortObs);
    const saved = as;
    as = shortAs;
    try {
      const client = await register(shortAs);
      const tokens = await fullFlow(shortObs, client);
      expect(tokens.expires_in).toBe(2);
      expect((await mcpPost(shortObs, tokens.access_token)).status).toBe(200);
      await new Promise((r) => setTimeout(r, 2_100));
      const expired = await mcpPost(shortObs, tokens.access_token);
      expect(expired.status).toBe(401);
      expect(expired.headers['www-authenticate']).toContain('error="invalid_token"');
      const refreshed = await oauth.processRefreshTokenResponse(
        shortAs,
        client,
        await oauth.refreshTokenGrantRequest(shortAs, client, oauth.None(), tokens.refresh_token!, INSECURE),
      );
      expect((await mcpPost(shortObs, refreshed.access_token)).status).toBe(200);
    } finally {
      as = saved;
    }
  });

  it('re-shows the page on a wrong password and throttles repeated failures like the dashboard', async () => {
    const shortAs = await discover(shortObs);
    const client = await register(shortAs);
    const req = await authorizeRequest(shortObs, client);
    const page = await openConsent(req);
    const wrong = await submitConsent(shortObs, page, { username: USER, password: 'wrong password entirely', decision: 'approve' });
    expect(wrong.status).toBe(401);
    const html = await wrong.text();
    expect(html).toContain('Invalid user name or password');
    const again = { ...page, formToken: /name="form_token" value="([^"]+)"/.exec(html)?.[1] };
    // Straight away: the per-IP delay after a failure holds the next attempt back.
    const held = await submitConsent(shortObs, again, { username: USER, password: PASSWORD, decision: 'approve' });
    expect(held.status).toBe(429);
    expect(held.headers.get('retry-after')).toMatch(/^\d+$/);
  });
});
