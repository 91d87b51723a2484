// Guards the observer's consent step in a real browser (headless Chromium, production build, real broker): the operator signs in and allows, the browser lands on the client's loopback redirect URI with a code that PKCE turns into a token for the 18 read tools; Deny and a wrong password are answered in the page; a cross-origin page auto-submitting the form and a replayed form token are refused with a readable page.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createObserverLogger, startObserverHttp, type RunningObserverHttp } from '@terminal-mcp/observer';
import * as oauth from 'oauth4webapi';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBrokerProcess, type BrokerProcess } from './helpers/broker-process.js';
import { startLoopbackPages, type LoopbackPages } from './helpers/loopback-pages.js';
import { createOperatorAccount } from './helpers/operator-account.js';
import { startTmuxServer, type TmuxTestServer } from './helpers/tmux-server.js';
import { launchChromium } from './helpers/web-stack.js';

const USER = 'carol';
const PASSWORD = 'browser consent passphrase 77';
const INSECURE = { [oauth.allowInsecureRequests]: true } as const;

let tmux: TmuxTestServer;
let broker: BrokerProcess;
let obs: RunningObserverHttp;
let as: oauth.AuthorizationServer;
let browser: Browser;
let pages: LoopbackPages;
const clients: Client[] = [];

interface Started {
  client: oauth.Client;
  verifier: string;
  state: string;
  url: string;
}

async function register(): Promise<oauth.Client> {
  const metadata = { redirect_uris: [pages.redirectUri], client_name: 'Browser E2E', token_endpoint_auth_method: 'none' };
  return (await oauth.processDynamicClientRegistrationResponse(await oauth.dynamicClientRegistrationRequest(as, metadata, INSECURE))) as oauth.Client;
}

async function start(client: oauth.Client): Promise<Started> {
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const url = new URL(obs.urls.authorizationEndpoint);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: client.client_id,
    redirect_uri: pages.redirectUri,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    resource: obs.mcpUrl,
    scope: 'observer:read',
    state,
  }).toString();
  return { client, verifier, state, url: url.href };
}

/** Types into the consent page and presses a button; returns the status of the POST. */
async function signIn(page: Page, username: string, password: string, button: RegExp = /Sign in and allow/): Promise<number> {
  await page.locator('#username').fill(username);
  await page.locator('#password').fill(password);
  const [response] = await Promise.all([
    page.waitForResponse((r) => r.url() === obs.urls.authorizationEndpoint && r.request().method() === 'POST'),
    page.getByRole('button', { name: button }).click(),
  ]);
  return response.status();
}

async function newPage(): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ locale: 'en-US' });
  return { context, page: await context.newPage() };
}

const landedOnRedirect = (page: Page) => page.waitForURL((u) => u.href.startsWith(pages.redirectUri));

beforeAll(async () => {
  tmux = await startTmuxServer();
  await tmux.newSession('claude-browser', 'exec sleep 3600', { width: 80, height: 24 });
  broker = await startBrokerProcess({ tmuxSocket: tmux.socketName, config: { allowed_session_patterns: ['claude-*'], log_level: 'warn' } });
  await createOperatorAccount(broker.env, USER, PASSWORD);
  obs = await startObserverHttp({ port: 0, env: broker.env, log: createObserverLogger('silent') });
  const issuer = new URL(obs.publicUrl);
  as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...INSECURE }));
  pages = await startLoopbackPages();
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await Promise.allSettled(clients.map((c) => c.close()));
  await browser?.close().catch(() => {});
  await pages?.close();
  await obs?.close();
  await broker?.stop();
  await tmux?.kill();
});

describe('consent in headless Chromium', { timeout: 180_000 }, () => {
  it('signs in and allows, lands on the redirect URI with a code, and the PKCE token lists the 18 read tools', async () => {
    const started = await start(await register());
    const { context, page } = await newPage();
    try {
      const shown = await page.goto(started.url);
      expect(shown?.status()).toBe(200);
      expect(await page.locator('h1').innerText()).toContain('Browser E2E');
      expect(await signIn(page, USER, PASSWORD)).toBe(303);
      await landedOnRedirect(page);
      const callback = oauth.validateAuthResponse(as, started.client, new URL(page.url()), started.state);
      const tokens = await oauth.processAuthorizationCodeResponse(
        as,
        started.client,
        await oauth.authorizationCodeGrantRequest(as, started.client, oauth.None(), callback, pages.redirectUri, started.verifier, {
          additionalParameters: { resource: obs.mcpUrl },
          ...INSECURE,
        }),
      );
      const mcp = new Client({ name: 'browser-e2e', version: '0.0.0' });
      await mcp.connect(new StreamableHTTPClientTransport(new URL(obs.mcpUrl), { requestInit: { headers: { authorization: `Bearer ${tokens.access_token}` } } }));
      clients.push(mcp);
      expect((await mcp.listTools()).tools).toHaveLength(18);
    } finally {
      await context.close();
    }
  });

  it('sends the operator back to the client with access_denied when they press Deny', async () => {
    const started = await start(await register());
    const { context, page } = await newPage();
    try {
      await page.goto(started.url);
      await page.getByRole('button', { name: 'Deny' }).click();
      await landedOnRedirect(page);
      const params = new URL(page.url()).searchParams;
      expect(params.get('error')).toBe('access_denied');
      expect(params.get('state')).toBe(started.state);
      expect(params.get('code')).toBeNull();
    } finally {
      await context.close();
    }
  });

  it('re-shows the page with a readable message after a wrong password', async () => {
    const started = await start(await register());
    const { context, page } = await newPage();
    try {
      await page.goto(started.url);
      expect(await signIn(page, USER, 'not the password at all')).toBe(401);
      expect(await page.getByRole('alert').innerText()).toContain('Invalid user name or password');
      // Still the sign-in form, with the user name kept: the operator can try again.
      expect(await page.locator('#username').inputValue()).toBe(USER);
      expect(page.url()).toBe(obs.urls.authorizationEndpoint);
    } finally {
      await context.close();
    }
  });
});

describe('attacks on the consent form, in the browser', { timeout: 180_000 }, () => {
  for (const referrer of ['unsafe-url', 'no-referrer'] as const) {
    it(`refuses the form auto-submitted by a page on another loopback port (its referrer policy ${referrer}) with a readable page`, async () => {
      const started = await start(await register());
      const { context, page } = await newPage();
      try {
        // The victim's browser holds a live consent page (cookie set) and the attacker
        // somehow has its form token: the strongest CSRF position there is.
        await page.goto(started.url);
        const formToken = await page.locator('input[name=form_token]').getAttribute('value');
        const refused = page.waitForResponse((r) => r.url() === obs.urls.authorizationEndpoint && r.request().method() === 'POST');
        await page.goto(pages.attackUrl({ action: obs.urls.authorizationEndpoint, referrer, fields: { form_token: formToken!, username: USER, password: PASSWORD, decision: 'approve' } }));
        const response = await refused;
        expect(response.status()).toBe(403);
        expect(response.headers()['content-type']).toMatch(/^text\/html/);
        await page.locator('h1').waitFor();
        expect(await page.locator('h1').innerText()).toBe('Request refused');
        expect(await page.getByRole('alert').innerText()).toMatch(/another website/);
        expect(page.url().startsWith(pages.redirectUri)).toBe(false);
      } finally {
        await context.close();
      }
    });
  }

  it('refuses a replayed form token with a readable page', async () => {
    const started = await start(await register());
    const { context, page } = await newPage();
    try {
      await page.goto(started.url);
      const used = await page.locator('input[name=form_token]').getAttribute('value');
      expect(await signIn(page, USER, PASSWORD)).toBe(303);
      await landedOnRedirect(page);
      // A fresh page in the same browser, its form carrying the spent token.
      await page.goto(started.url);
      await page.locator('input[name=form_token]').evaluate((el, value) => ((el as HTMLInputElement).value = value), used!);
      expect(await signIn(page, USER, PASSWORD)).toBe(400);
      expect(await page.locator('h1').innerText()).toBe('This page has expired');
      expect(await page.getByRole('alert').innerText()).toMatch(/already used/);
    } finally {
      await context.close();
    }
  });
});
