// The dashboard lists the observer's OAuth clients and grants and revokes them (a client, one grant, everything of a user after a confirmation) so the broker refuses their tokens; cross-origin or signed-out POSTs change nothing; the access history shows who granted what, paged, and who revoked a connector, and grants left without a session can be revoked.
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createBrokerClient, type BrokerClient } from '@terminal-mcp/broker-client';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOperatorAccount } from './helpers/operator-account.js';
import { OPERATOR_PASSWORD, operatorSessionOf, screenshotDir, signInFirstTime, startWebStack, waitFor, type WebStack } from './helpers/web-stack.js';

// Screenshots go to docs/screenshots only when asked (they are committed); otherwise to a
// temp dir, so a test run does not rewrite tracked files.
const SCREENSHOTS = screenshotDir();
const SCREENSHOT_DIR = SCREENSHOTS.path;

const CLAUDE_CALLBACK = 'https://claude.ai/api/mcp/auth_callback';
const LOCAL_CALLBACK = 'http://127.0.0.1:33418/callback';
const RESOURCE = 'https://observer.example.test/mcp';
const ALICE = 'alice';
const ALICE_PASSWORD = 'copper kettle meadow 58';

interface Connection {
  clientId: string;
  accessToken: string;
  refreshToken: string;
}

describe('connectors and access history on the dashboard (production build, real broker)', { timeout: 180_000 }, () => {
  let stack: WebStack;
  let context: BrowserContext;
  let page: Page;
  let web: BrokerClient<'web'>;
  let observer: BrokerClient<'observer'>;
  let attacker: Server;
  let attackerOrigin: string;
  let claude: { clientId: string };
  let inspector: { clientId: string };
  let adminOnClaude: Connection;
  let aliceOnClaude: Connection;
  let aliceOnInspector: Connection;
  let adminOnInspector: Connection;
  let pendingAttack: Record<string, string> = {};

  /** What claude.ai does, through the observer's broker procedures: register (RFC 7591). */
  async function registerClient(clientName: string, redirectUri: string): Promise<{ clientId: string }> {
    const r = await observer.oauth.registerClient.mutate({ redirectUris: [redirectUri], clientName, tokenEndpointAuthMethod: 'none' });
    if (!r.ok) throw new Error(`registration refused: ${r.error}`);
    return { clientId: r.client.clientId };
  }

  /** The operator approves on the consent page (password + PKCE S256), the client redeems the code: one grant. */
  async function connect(clientId: string, redirectUri: string, username: string, password: string): Promise<Connection> {
    const verifier = randomBytes(32).toString('base64url');
    const codeChallenge = createHash('sha256').update(verifier).digest('base64url');
    const approved = await observer.oauth.approveAuthorization.mutate({
      username,
      password,
      sourceIp: '127.0.0.1',
      clientId,
      redirectUri,
      codeChallenge,
      codeChallengeMethod: 'S256',
      resource: RESOURCE,
    });
    const t = await observer.oauth.exchangeToken.mutate({ grantType: 'authorization_code', clientId, code: approved.code, redirectUri, codeVerifier: verifier, resource: RESOURCE });
    if (!t.ok) throw new Error(`token refused: ${t.error}`);
    return { clientId, accessToken: t.tokens.accessToken, refreshToken: t.tokens.refreshToken };
  }

  /** Whether the broker still honours the connection's tokens (what the observer asks on every request). */
  async function tokenWorks(c: Connection): Promise<boolean> {
    return observer.oauth.verifyAccessToken.query({ token: c.accessToken, resource: RESOURCE }).then(
      () => true,
      () => false,
    );
  }

  const clientRow = (clientId: string) => page.locator(`tr[data-client="${clientId}"]`);
  const grantRows = (username: string) => page.locator(`tr[data-grant][data-user="${username}"]`);
  const posted = (action: string) => page.waitForResponse((r) => r.request().method() === 'POST' && r.url().includes(`?/${action}`));

  beforeAll(async () => {
    stack = await startWebStack();
    await stack.tmux.newSession('claude-agent', 'bash --norc --noprofile');
    await stack.tmux.newSession('work-shell', 'bash --norc --noprofile');
    await stack.tmux.newSession('gone-shell', 'bash --norc --noprofile');
    await stack.tmux.newSession('page-shell', 'bash --norc --noprofile');
    observer = createBrokerClient({ role: 'observer', env: stack.broker.env });
    await createOperatorAccount(stack.broker.env, ALICE, ALICE_PASSWORD);

    attacker = createServer((req, res) => {
      const body = pendingAttack[req.url ?? ''];
      if (!body) return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'text/html' }).end(body);
    });
    await new Promise<void>((r) => attacker.listen(0, '127.0.0.1', r));
    attackerOrigin = `http://127.0.0.1:${(attacker.address() as AddressInfo).port}`;

    context = await stack.browser.newContext({ locale: 'en-US', viewport: { width: 1280, height: 860 } });
    page = await context.newPage();
    await signInFirstTime(page, stack);
    // The dashboard's broker calls act for the signed-in operator (admin): its session token.
    const token = await operatorSessionOf(page);
    web = createBrokerClient({ role: 'web', env: stack.broker.env, operatorSession: () => token });
    mkdirSync(SCREENSHOT_DIR, { recursive: true });
  }, 180_000);

  afterAll(async () => {
    await new Promise((r) => attacker?.close(r));
    await stack?.stop();
    SCREENSHOTS.remove();
  });

  it('is linked from the header and explains how to connect claude.ai when nothing is connected, in both languages', async () => {
    await page.locator('header nav a[href="/connectors"]').click();
    await page.waitForURL(`${stack.baseUrl}/connectors`);
    const empty = page.getByTestId('clients-empty');
    await empty.waitFor();
    expect(await empty.innerText()).toContain('docs/claude-web-connector.md');
    expect(await empty.innerText()).toContain('claude.ai');
    await page.locator('header [data-lang=vi]').click();
    await waitFor('Vietnamese text', async () => (await page.locator('h1').innerText()) === 'Kết nối');
    expect(await empty.innerText()).toContain('docs/claude-web-connector.md');
    await page.locator('header [data-lang=en]').click();
    await waitFor('English text', async () => (await page.locator('h1').innerText()) === 'Connectors');
  });

  it('lists registered clients and each user’s live grants', async () => {
    claude = await registerClient('Claude', CLAUDE_CALLBACK);
    inspector = await registerClient('MCP Inspector', LOCAL_CALLBACK);
    adminOnClaude = await connect(claude.clientId, CLAUDE_CALLBACK, 'admin', OPERATOR_PASSWORD);
    aliceOnClaude = await connect(claude.clientId, CLAUDE_CALLBACK, ALICE, ALICE_PASSWORD);
    aliceOnInspector = await connect(inspector.clientId, LOCAL_CALLBACK, ALICE, ALICE_PASSWORD);
    adminOnInspector = await connect(inspector.clientId, LOCAL_CALLBACK, 'admin', OPERATOR_PASSWORD);

    await page.goto(`${stack.baseUrl}/connectors`);
    const row = clientRow(claude.clientId);
    await row.waitFor();
    const text = await row.innerText();
    expect(text).toContain('Claude');
    expect(text).toContain(CLAUDE_CALLBACK);
    expect(text).not.toContain('Never');
    expect(await clientRow(inspector.clientId).innerText()).toContain(LOCAL_CALLBACK);
    expect(await grantRows('admin').count()).toBe(2);
    expect(await grantRows(ALICE).count()).toBe(2);
    const aliceClaude = page.locator(`tr[data-grant][data-user="${ALICE}"][data-grant-client="${claude.clientId}"]`);
    expect(await aliceClaude.innerText()).toContain('observer:read');
    expect(await aliceClaude.innerText()).toContain(RESOURCE);
    for (const c of [adminOnClaude, aliceOnClaude, aliceOnInspector, adminOnInspector]) expect(await tokenWorks(c)).toBe(true);
    await page.screenshot({ path: join(SCREENSHOT_DIR, 'connectors-desktop.png'), fullPage: true });
  });

  it('fits a phone screen: one card per row, nothing wider than the screen', async () => {
    const phone = await context.newPage();
    await phone.setViewportSize({ width: 390, height: 844 });
    for (const path of ['/connectors', '/history']) {
      await phone.goto(`${stack.baseUrl}${path}`);
      await phone.locator('h1').waitFor();
      expect(await phone.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
      if (path === '/connectors') {
        expect(await phone.locator('.stack-table thead').first().isVisible()).toBe(false);
        expect(await phone.getByTestId('revoke-client').first().isVisible()).toBe(true);
        await phone.screenshot({ path: join(SCREENSHOT_DIR, 'connectors-phone.png'), fullPage: true });
      }
    }
    await phone.close();
  });

  it('refuses a cross-origin revoke (403) and a signed-out one (401); nothing changes', async () => {
    const form = (action: string, fields: Record<string, string>) =>
      `<!doctype html><html><body><form id="f" method="POST" action="${stack.baseUrl}/connectors?/${action}">${Object.entries(fields)
        .map(([k, v]) => `<input type="hidden" name="${k}" value="${v}">`)
        .join('')}</form><script>document.getElementById('f').submit()</script></body></html>`;
    pendingAttack = {
      '/client': form('revokeClient', { client: inspector.clientId }),
      '/user': form('revokeUser', { username: ALICE, confirm: ALICE }),
    };
    for (const path of Object.keys(pendingAttack)) {
      const attackPage = await context.newPage();
      const refused = attackPage.waitForResponse((r) => r.request().method() === 'POST' && r.url().startsWith(stack.baseUrl));
      await attackPage.goto(`${attackerOrigin}${path}`);
      const response = await refused;
      expect(response.status()).toBe(403);
      expect(response.request().headers().origin).toBe(attackerOrigin);
      await attackPage.close();
    }

    // Same origin but no session cookie: requireUser in the action refuses.
    const status = await new Promise<number>((resolve, reject) => {
      const body = new URLSearchParams({ client: inspector.clientId }).toString();
      const req = request(
        {
          host: '127.0.0.1',
          port: stack.web.port,
          method: 'POST',
          path: '/connectors?/revokeClient',
          headers: { origin: stack.baseUrl, 'content-type': 'application/x-www-form-urlencoded', 'content-length': Buffer.byteLength(body) },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end(body);
    });
    expect(status).toBe(401);

    const inspectorNow = (await web.oauthAdmin.listClients.query()).find((c) => c.clientId === inspector.clientId)!;
    expect(inspectorNow.revokedAt).toBeNull();
    expect((await web.oauthAdmin.listGrants.query()).filter((g) => g.username === ALICE)).toHaveLength(2);
    expect(await tokenWorks(aliceOnInspector)).toBe(true);
    expect(await tokenWorks(adminOnInspector)).toBe(true);
  });

  it('revokes a client from its row: it leaves the list, and the broker refuses its tokens', async () => {
    await page.goto(`${stack.baseUrl}/connectors`);
    const answer = posted('revokeClient');
    await clientRow(claude.clientId).getByTestId('revoke-client').click();
    expect((await answer).status()).toBe(200);
    await clientRow(claude.clientId).waitFor({ state: 'detached' });
    expect(await page.getByTestId('revoked-notice').innerText()).toContain('grants ended: 2');
    expect(await page.locator(`[data-grant-client="${claude.clientId}"]`).count()).toBe(0);
    expect(await page.locator(`[data-revoked-client="${claude.clientId}"]`).count()).toBe(1);
    await clientRow(inspector.clientId).waitFor();

    const listed = (await web.oauthAdmin.listClients.query()).find((c) => c.clientId === claude.clientId)!;
    expect(listed.revokedAt).not.toBeNull();
    expect((await web.oauthAdmin.listGrants.query()).some((g) => g.clientId === claude.clientId)).toBe(false);
    expect(await tokenWorks(adminOnClaude)).toBe(false);
    expect(await tokenWorks(aliceOnClaude)).toBe(false);
    const refresh = await observer.oauth.exchangeToken.mutate({ grantType: 'refresh_token', clientId: claude.clientId, refreshToken: aliceOnClaude.refreshToken });
    expect(refresh.ok).toBe(false);
    // The other client is untouched.
    expect(await tokenWorks(aliceOnInspector)).toBe(true);
  });

  it('revokes one grant from its row', async () => {
    const answer = posted('revokeGrant');
    await page.locator(`tr[data-grant][data-user="admin"][data-grant-client="${inspector.clientId}"]`).getByTestId('revoke-grant').click();
    expect((await answer).status()).toBe(200);
    await waitFor('the admin grant gone', async () => (await grantRows('admin').count()) === 0);
    expect(await tokenWorks(adminOnInspector)).toBe(false);
    expect(await tokenWorks(aliceOnInspector)).toBe(true);
  });

  it('revokes everything a user approved only after a confirmation', async () => {
    const first = posted('revokeUser');
    await page.locator(`[data-testid="revoke-user"][data-user="${ALICE}"]`).click();
    expect((await first).status()).toBe(200);
    const confirm = page.getByTestId('confirm-user');
    await confirm.waitFor();
    expect(await confirm.innerText()).toContain(ALICE);
    // Asking is not doing.
    expect(await tokenWorks(aliceOnInspector)).toBe(true);
    expect(await grantRows(ALICE).count()).toBe(1);

    // Cancel, then ask again and confirm.
    await confirm.locator('a.cancel').click();
    await confirm.waitFor({ state: 'detached' });
    expect(await tokenWorks(aliceOnInspector)).toBe(true);
    const again = posted('revokeUser');
    await page.locator(`[data-testid="revoke-user"][data-user="${ALICE}"]`).click();
    await again;
    const confirmed = posted('revokeUser');
    await page.getByTestId('confirm-revoke-user').click();
    expect((await confirmed).status()).toBe(200);
    await page.getByTestId('grants-empty').waitFor();
    expect(await page.getByTestId('revoked-notice').innerText()).toContain('Grants revoked: 1');
    expect(await tokenWorks(aliceOnInspector)).toBe(false);
    expect(await web.oauthAdmin.listGrants.query()).toEqual([]);
    // Revoking a user's grants leaves the client registered.
    expect((await web.oauthAdmin.listClients.query()).find((c) => c.clientId === inspector.clientId)!.revokedAt).toBeNull();
  });

  it('lists the OAuth revocations in the access history, with who revoked them', async () => {
    await page.goto(`${stack.baseUrl}/history`);
    const table = page.getByTestId('oauth-revocations');
    await table.waitFor();
    expect(await table.locator(`tr[data-oauth-kind="client"][data-oauth-client="${claude.clientId}"]`).count()).toBe(1);
    const byUser = table.locator(`tr[data-oauth-kind="grants"][data-oauth-client="${inspector.clientId}"][data-oauth-user="${ALICE}"]`);
    expect(await byUser.getByTestId('oauth-reason').innerText()).toMatch(/^user revoked by web:admin$/);
    const oneGrant = table.locator(`tr[data-oauth-kind="grants"][data-oauth-client="${inspector.clientId}"][data-oauth-user="admin"]`);
    expect(await oneGrant.getByTestId('oauth-reason').innerText()).toMatch(/^revoked by web:admin$/);
  });

  it('shows a grant made from the dashboard in the access history, with the operator’s name', async () => {
    await page.goto(`${stack.baseUrl}/sessions`);
    await page.locator('tr[data-session="work-shell"]').getByTestId('lock').click();
    const dialog = page.getByTestId('access-dialog');
    await dialog.locator('[data-preset=view]').click();
    const answer = posted('access');
    await dialog.getByTestId('access-apply').click();
    expect((await answer).status()).toBe(200);
    await dialog.waitFor({ state: 'detached' });

    await page.locator('header nav a[href="/history"]').click();
    await page.waitForURL(`${stack.baseUrl}/history`);
    const newest = page.locator('[data-testid=history] tbody tr').first();
    await newest.waitFor();
    expect(await newest.getAttribute('data-session')).toBe('work-shell');
    expect(await newest.getAttribute('data-action')).toBe('grant');
    expect(await newest.getByTestId('event-actor').innerText()).toBe('admin');
    expect(await newest.innerText()).toMatch(/No access\s*→\s*View/);
    const [event] = (await web.grants.events.query({ session: 'work-shell', limit: 1 })).events;
    expect(event).toMatchObject({ actor: 'admin', action: 'grant', after: { read: true, input: false } });
  });

  it('pages through older events with the broker’s cursor', async () => {
    // 60 more events (grant, revoke, ...): more than one page of 50.
    for (let i = 0; i < 30; i++) {
      await web.grants.set.mutate({ session: 'page-shell', read: true, input: i % 2 === 0 });
      await web.grants.revoke.mutate({ session: 'page-shell' });
    }
    await page.goto(`${stack.baseUrl}/history`);
    const rows = page.locator('[data-testid=history] tbody tr');
    await rows.first().waitFor();
    expect(await rows.count()).toBe(50);
    expect(await rows.first().getAttribute('data-action')).toBe('revoke');
    const newestIds = await rows.evaluateAll((trs) => trs.map((tr) => Number(tr.getAttribute('data-event'))));
    await page.getByTestId('history-older').click();
    await page.waitForURL(/\/history\?cursor=\d+$/);
    await page.getByTestId('history-newest').waitFor();
    const olderIds = await rows.evaluateAll((trs) => trs.map((tr) => Number(tr.getAttribute('data-event'))));
    expect(olderIds.length).toBeGreaterThan(0);
    expect(Math.max(...olderIds)).toBeLessThan(Math.min(...newestIds));
    expect([...newestIds, ...olderIds]).toEqual([...newestIds, ...olderIds].sort((a, b) => b - a));
    expect(await page.locator('tr[data-session="work-shell"][data-action="grant"]').count()).toBe(1);
  });

  it('lists a grant whose session is gone and revokes it', async () => {
    await web.grants.set.mutate({ session: 'gone-shell', read: true, input: false });
    await stack.tmux.tmux(['kill-session', '-t', 'gone-shell']);
    await page.goto(`${stack.baseUrl}/history`);
    const orphan = page.locator('tr[data-orphan="gone-shell"]');
    await orphan.waitFor();
    expect(await orphan.innerText()).toContain('admin');
    await page.screenshot({ path: join(SCREENSHOT_DIR, 'history-desktop.png'), fullPage: true });
    const answer = posted('revokeOrphan');
    await orphan.getByTestId('revoke-orphan').click();
    expect((await answer).status()).toBe(200);
    await orphan.waitFor({ state: 'detached' });
    expect((await web.grants.list.query()).orphaned_grants.map((g) => g.session)).not.toContain('gone-shell');
    const [event] = (await web.grants.events.query({ session: 'gone-shell', limit: 1 })).events;
    expect(event).toMatchObject({ actor: 'admin', action: 'revoke' });
    const newest = page.locator('[data-testid=history] tbody tr').first();
    expect(await newest.getAttribute('data-session')).toBe('gone-shell');
    expect(await newest.getAttribute('data-action')).toBe('revoke');
  });
});
