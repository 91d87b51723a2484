// Guards OAuth 2.1 on the gateway for ChatGPT end to end (real broker, private tmux server, headless Chromium on the consent page, oauth4webapi, the MCP SDK client): the consent page ticks nothing optional, so clicking through grants reading only; the operator ticks input to grant it; the token works only at the gateway (and observer tokens only at the observer); a read-only token's input attempts are refused by the broker, audited and answered like every other refusal (a BLOCKED receipt from terminal_send_task); every input is audited under the client (name and id) and the operator, and the static token stays a loopback-only path.
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createBrokerClient, describeBrokerFailure } from '@terminal-mcp/broker-client';
import { GATEWAY_TOOLSETS } from '@terminal-mcp/contract';
import { createGatewayLogger, ERROR_META_KEY, GATEWAY_TOOLS, startGatewayHttp, type RunningGatewayHttp } from '@terminal-mcp/gateway';
import { createObserverLogger, startObserverHttp, type RunningObserverHttp } from '@terminal-mcp/observer';
import Database from 'better-sqlite3';
import * as oauth from 'oauth4webapi';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBrokerProcess, type BrokerProcess } from './helpers/broker-process.js';
import { startLoopbackPages, type LoopbackPages } from './helpers/loopback-pages.js';
import { createOperatorAccount } from './helpers/operator-account.js';
import { startTmuxServer, type TmuxTestServer } from './helpers/tmux-server.js';
import { launchChromium } from './helpers/web-stack.js';

const USER = 'dora';
const PASSWORD = 'gateway oauth passphrase 58';
const SESSION = 'agent-oauth';
const STATIC_TOKEN = 'static-script-token-7c1e';
const INSECURE = { [oauth.allowInsecureRequests]: true } as const;
const CONFIG = {
  log_level: 'warn',
  permissions: { terminal_read: true, terminal_input: true },
  allowed_session_patterns: ['agent-*'],
  input_policy: { allowed_session_patterns: ['agent-*'] },
  // OAuth clients are served every toolset (the default is narrower): proves the per-kind entry.
  gateway: { toolsets: { oauth: [...GATEWAY_TOOLSETS] } },
};

let tmux: TmuxTestServer;
let broker: BrokerProcess;
let gw: RunningGatewayHttp;
let obs: RunningObserverHttp;
let pages: LoopbackPages;
let browser: Browser;
const clients: Client[] = [];

interface Server {
  issuer: string;
  authorize: string;
  resource: string;
  as: oauth.AuthorizationServer;
}

async function discover(issuer: string, resource: string): Promise<Server> {
  const url = new URL(issuer);
  const as = await oauth.processDiscoveryResponse(url, await oauth.discoveryRequest(url, { algorithm: 'oauth2', ...INSECURE }));
  return { issuer, authorize: as.authorization_endpoint!, resource, as };
}

async function register(server: Server, redirectUris = [pages.redirectUri]): Promise<oauth.Client> {
  const metadata = { redirect_uris: redirectUris, client_name: 'ChatGPT Connector', token_endpoint_auth_method: 'none' };
  return (await oauth.processDynamicClientRegistrationResponse(await oauth.dynamicClientRegistrationRequest(server.as, metadata, INSECURE))) as oauth.Client;
}

/** The whole flow, with the consent step in Chromium: returns the token response. */
/** `tick`: the optional scopes the operator ticks on the consent page (none by default:
 * every optional box must start unticked). */
async function connectInBrowser(server: Server, opts: { scope?: string; tick?: readonly string[] } = {}): Promise<oauth.TokenEndpointResponse> {
  const client = await register(server);
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const url = new URL(server.authorize);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: client.client_id,
    redirect_uri: pages.redirectUri,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    resource: server.resource,
    state,
    ...(opts.scope ? { scope: opts.scope } : {}),
  }).toString();
  const context = await browser.newContext({ locale: 'en-US' });
  try {
    const page: Page = await context.newPage();
    await page.goto(url.href);
    const boxes = page.locator('input[type="checkbox"][name^="grant."]');
    for (const box of await boxes.all()) expect(await box.isChecked()).toBe(false);
    for (const scope of opts.tick ?? []) await page.locator(`input[name="grant.${scope}"]`).check();
    await page.locator('#username').fill(USER);
    await page.locator('#password').fill(PASSWORD);
    await page.getByRole('button', { name: /Sign in and allow/ }).click();
    await page.waitForURL((u) => u.href.startsWith(pages.redirectUri), { timeout: 30_000 });
    const callback = oauth.validateAuthResponse(server.as, client, new URL(page.url()), state);
    return await oauth.processAuthorizationCodeResponse(
      server.as,
      client,
      await oauth.authorizationCodeGrantRequest(server.as, client, oauth.None(), callback, pages.redirectUri, verifier, { additionalParameters: { resource: server.resource }, ...INSECURE }),
    );
  } finally {
    await context.close();
  }
}

async function mcp(url: string, accessToken: string): Promise<Client> {
  const client = new Client({ name: 'chatgpt-like', version: '0.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${accessToken}` } } }));
  clients.push(client);
  return client;
}

const call = (client: Client, name: string, args: Record<string, unknown>) => client.callTool({ name, arguments: args }) as Promise<CallToolResult>;
const errorCodeOf = (r: CallToolResult) => (r._meta?.[ERROR_META_KEY] as { error_code?: string } | undefined)?.error_code;

interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

function raw(port: number, opts: { method?: string; path: string; host?: string; headers?: Record<string, string>; body?: string }): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method: opts.method ?? 'GET', path: opts.path, headers: { host: opts.host ?? `127.0.0.1:${port}`, ...opts.headers } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}

const INITIALIZE = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } });
const mcpPost = (port: number, token: string | undefined, host?: string) =>
  raw(port, {
    method: 'POST',
    path: '/mcp',
    ...(host ? { host } : {}),
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: INITIALIZE,
  });

async function refusedAttempts(): Promise<{ tool: string; actor: string }[]> {
  const db = new Database(join(broker.stateDir, 'audit.db'), { readonly: true });
  try {
    return db.prepare("SELECT tool, actor FROM input_audit WHERE decision = 'BLOCKED' AND error_code = 'INPUT_NOT_ALLOWED' ORDER BY id").all() as { tool: string; actor: string }[];
  } finally {
    db.close();
  }
}

async function inputAuditActors(): Promise<string[]> {
  const db = new Database(join(broker.stateDir, 'audit.db'), { readonly: true });
  try {
    return (db.prepare("SELECT actor FROM input_audit WHERE tool = 'terminal_send_text'").all() as { actor: string }[]).map((r) => r.actor);
  } finally {
    db.close();
  }
}

let gateway: Server;
let observer: Server;

beforeAll(async () => {
  tmux = await startTmuxServer();
  await tmux.newSession(SESSION, 'exec cat', { width: 80, height: 24 });
  broker = await startBrokerProcess({ tmuxSocket: tmux.socketName, config: CONFIG });
  await createOperatorAccount(broker.env, USER, PASSWORD);
  const silent = createGatewayLogger('silent');
  gw = await startGatewayHttp({ port: 0, env: broker.env, log: silent, oauth: true, token: STATIC_TOKEN, registrationLimits: { perSource: 1000 } });
  obs = await startObserverHttp({ port: 0, env: broker.env, log: createObserverLogger('silent'), registrationLimits: { perSource: 1000 } });
  gateway = await discover(gw.oauth!.issuer, gw.oauth!.resource);
  observer = await discover(obs.publicUrl, obs.mcpUrl);
  pages = await startLoopbackPages();
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await Promise.allSettled(clients.map((c) => c.close()));
  await browser?.close().catch(() => {});
  await pages?.close();
  await gw?.close();
  await obs?.close();
  await broker?.stop();
  await tmux?.kill();
}, 60_000);

describe('the gateway as a protected resource', () => {
  it('answers /mcp without a token with 401 naming its resource metadata, and serves RFC 9728 and RFC 8414 metadata', async () => {
    const res = await mcpPost(gw.port, undefined);
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe(`Bearer resource_metadata="${gw.oauth!.issuer}/.well-known/oauth-protected-resource/mcp", scope="terminal:read terminal:write terminal:input"`);
    for (const path of ['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/mcp']) {
      const doc = await raw(gw.port, { path });
      expect(JSON.parse(doc.body)).toMatchObject({ resource: gw.mcpUrl, authorization_servers: [gw.oauth!.issuer], scopes_supported: ['terminal:read', 'terminal:write', 'terminal:input'] });
    }
    expect(gateway.as).toMatchObject({ issuer: gw.oauth!.issuer, registration_endpoint: `${gw.oauth!.issuer}/register`, revocation_endpoint: `${gw.oauth!.issuer}/revoke`, code_challenge_methods_supported: ['S256'] });
  });

  it('accepts ChatGPT\'s callbacks and loopback at registration and refuses others (and the observer refuses ChatGPT\'s)', async () => {
    const reg = (server: Server, uri: string) => oauth.dynamicClientRegistrationRequest(server.as, { redirect_uris: [uri], token_endpoint_auth_method: 'none' }, INSECURE);
    for (const uri of ['https://chatgpt.com/connector_platform_oauth_redirect', 'https://chatgpt.com/connector/oauth/Abc-123_x']) expect((await reg(gateway, uri)).status).toBe(201);
    for (const uri of ['https://chatgpt.com.evil.example/connector/oauth/x', 'https://evil.example/connector/oauth/x', 'https://chatgpt.com/other', 'https://chatgpt.com/connector/oauth/x/y', 'https://claude.ai/api/mcp/auth_callback']) {
      const res = await reg(gateway, uri);
      expect(res.status, uri).toBe(400);
      expect(await res.json()).toMatchObject({ error: 'invalid_redirect_uri' });
    }
    expect((await reg(observer, 'https://chatgpt.com/connector/oauth/Abc')).status).toBe(400);
  });
});

describe('connecting like ChatGPT', { timeout: 180_000 }, () => {
  it('grants reading only when the operator clicks through the consent page without ticking anything', async () => {
    const tokens = await connectInBrowser(gateway);
    expect(tokens.scope).toBe('terminal:read');
  });

  it('approves reading and input in the browser when the operator ticks input; the token lists every gateway tool, types into the session and is audited as client and operator', async () => {
    const tokens = await connectInBrowser(gateway, { tick: ['terminal:input'] });
    expect(tokens.scope).toBe('terminal:read terminal:input');
    const client = await mcp(gw.mcpUrl, tokens.access_token);
    expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(GATEWAY_TOOLS.map((t) => t.name).sort());
    const list = await call(client, 'terminal_list_sessions', {});
    expect(list.isError).toBeFalsy();
    const sent = await call(client, 'terminal_send_text', { session: SESSION, text: 'typed-through-oauth', enter: true });
    expect(sent.isError, JSON.stringify(sent)).toBeFalsy();
    expect((await inputAuditActors()).some((a) => a.startsWith(`gateway:oauth:ChatGPT-Connector@${USER}/`))).toBe(true);
  });

  it('a read-only token is not listed the input tools; a call of one by name is refused by the broker, audited, and answered like every other refusal (send_task: a BLOCKED receipt); reads still work', async () => {
    const tokens = await connectInBrowser(gateway);
    expect(tokens.scope).toBe('terminal:read');
    const client = await mcp(gw.mcpUrl, tokens.access_token);
    const listed = (await client.listTools()).tools.map((t) => t.name);
    expect(listed).toContain('terminal_tail_bound');
    for (const name of ['terminal_send_text', 'terminal_send_task', 'terminal_send_keys', 'terminal_send_bound', 'terminal_run']) expect(listed, name).not.toContain(name);
    expect((await call(client, 'terminal_list_sessions', {})).isError).toBeFalsy();
    const attempts: Array<[string, Record<string, unknown>]> = [
      ['terminal_send_text', { session: SESSION, text: 'must not arrive' }],
      ['terminal_send_task', { session: SESSION, text: 'must not arrive' }],
      ['terminal_send_keys', { session: SESSION, keys: ['Enter'] }],
      ['terminal_send_bound', { binding: 'any-binding', text: 'must not arrive' }],
      ['terminal_run', { session: SESSION, command: 'echo must not arrive' }],
    ];
    const before = await refusedAttempts();
    for (const [tool, args] of attempts) {
      const r = await call(client, tool, args);
      if (tool === 'terminal_send_task') {
        expect(r.structuredContent, tool).toMatchObject({ receipt: 'BLOCKED', error_code: 'INPUT_NOT_ALLOWED' });
      } else {
        expect(r.isError, tool).toBe(true);
        expect(errorCodeOf(r), tool).toBe('INPUT_NOT_ALLOWED');
      }
    }
    // Each attempt is in the input audit, refused, under this client.
    const after = await refusedAttempts();
    expect(after.slice(before.length).map((r) => r.tool).sort()).toEqual(attempts.map(([tool]) => tool).sort());
    expect(await tmux.tmux(['capture-pane', '-p', '-t', `${SESSION}:`])).not.toContain('must not arrive');
  });

  it('asks for reading only when the client asks for it: no input box on the page', async () => {
    const tokens = await connectInBrowser(gateway, { scope: 'terminal:read' });
    expect(tokens.scope).toBe('terminal:read');
  });

  it('the broker itself refuses input for a read-only credential on gateway.sock, whatever the gateway claims', async () => {
    const readOnly = await connectInBrowser(gateway);
    const direct = createBrokerClient({ role: 'gateway', env: broker.env });
    const send = () => direct.input.sendText.mutate({ session: SESSION, text: 'x', dry_run: true });
    // Without a credential (stdio, static token): the input policy alone decides.
    await expect(send()).resolves.toMatchObject({ result: 'DRY_RUN' });
    const sendAs = (credential: string) => direct.as({ credential }).input.sendText.mutate({ session: SESSION, text: 'x', dry_run: true });
    const refused = await sendAs(readOnly.access_token).catch((err: unknown) => describeBrokerFailure(err));
    expect(refused).toMatchObject({ code: 'INPUT_NOT_ALLOWED' });
    const forged = await sendAs('tmcp_at_forged').catch((err: unknown) => describeBrokerFailure(err));
    expect(forged).toMatchObject({ code: 'UNAUTHENTICATED' });
  });

  it('binds an MCP session to the token\'s client and grant: another token presenting its Mcp-Session-Id is refused, and may not end it', async () => {
    const owner = await connectInBrowser(gateway, { tick: ['terminal:input'] });
    const other = await connectInBrowser(gateway);
    const post = (token: string, id: string, body: string) =>
      raw(gw.port, {
        method: 'POST',
        path: '/mcp',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token}`, 'mcp-session-id': id },
        body,
      });
    const init = await mcpPost(gw.port, owner.access_token);
    expect(init.status).toBe(200);
    const id = init.headers['mcp-session-id'] as string;
    const list = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    const send = JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'terminal_send_text', arguments: { session: SESSION, text: 'hijacked-session-text', enter: true } } });
    // The attack: a read-only token (another client) riding the owner's session, and the
    // static token doing the same on loopback.
    for (const token of [other.access_token, STATIC_TOKEN]) {
      for (const body of [list, send]) {
        const refused = await post(token, id, body);
        expect(refused.status).toBe(403);
        expect(refused.body).not.toContain('terminal_send_text');
      }
    }
    expect(await tmux.tmux(['capture-pane', '-p', '-t', `${SESSION}:`])).not.toContain('hijacked-session-text');
    // Nor may they end it (DELETE): that would cut the owner off.
    for (const token of [other.access_token, STATIC_TOKEN]) {
      const ended = await raw(gw.port, { method: 'DELETE', path: '/mcp', headers: { authorization: `Bearer ${token}`, 'mcp-session-id': id } });
      expect(ended.status).toBe(403);
    }
    // The owner's own requests are still served by it.
    const own = await post(owner.access_token, id, list);
    expect(own.status).toBe(200);
    expect(own.headers['mcp-session-id']).toBe(id);
    expect(own.body).toContain('terminal_send_text');
  });

  it('refuses an observer token at the gateway and a gateway token at the observer', async () => {
    const gatewayTokens = await connectInBrowser(gateway);
    const observerTokens = await connectInBrowser(observer);
    expect((await mcpPost(gw.port, gatewayTokens.access_token)).status).toBe(200);
    expect((await mcpPost(obs.port, observerTokens.access_token)).status).toBe(200);
    const atGateway = await mcpPost(gw.port, observerTokens.access_token);
    expect(atGateway.status).toBe(401);
    expect(atGateway.headers['www-authenticate']).toContain('error="invalid_token"');
    expect((await mcpPost(obs.port, gatewayTokens.access_token)).status).toBe(401);
  });
});

describe('the static token and health details with OAuth on', () => {
  let tunnel: RunningGatewayHttp;
  const PUBLIC = 'gw-tunnel.example.com';
  beforeAll(async () => {
    tunnel = await startGatewayHttp({ port: 0, env: broker.env, log: createGatewayLogger('silent'), publicUrl: `https://${PUBLIC}`, token: STATIC_TOKEN });
  });
  afterAll(async () => {
    await tunnel?.close();
  });

  it('takes the static token on a loopback Host only; through the tunnel it needs OAuth', async () => {
    expect((await mcpPost(tunnel.port, STATIC_TOKEN)).status).toBe(200);
    const viaTunnel = await mcpPost(tunnel.port, STATIC_TOKEN, PUBLIC);
    expect(viaTunnel.status).toBe(401);
    expect(viaTunnel.headers['www-authenticate']).toContain(`resource_metadata="https://${PUBLIC}/.well-known/oauth-protected-resource/mcp"`);
  });

  it('reveals no readiness detail or commit without the token', async () => {
    for (const host of [PUBLIC, undefined]) {
      const ready = await raw(tunnel.port, { path: '/health/ready', ...(host ? { host } : {}) });
      expect(JSON.parse(ready.body)).toEqual({ ready: true });
      const version = JSON.parse((await raw(tunnel.port, { path: '/version', ...(host ? { host } : {}) })).body) as Record<string, unknown>;
      expect(Object.keys(version).sort()).toEqual(['name', 'version']);
    }
    const auth = { authorization: `Bearer ${STATIC_TOKEN}` };
    expect(JSON.parse((await raw(tunnel.port, { path: '/health/ready', headers: auth })).body)).toHaveProperty('tmux');
    expect(JSON.parse((await raw(tunnel.port, { path: '/version', headers: auth })).body)).toHaveProperty('commit');
  });
});
