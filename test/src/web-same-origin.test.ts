// A page served from another local port (same site, so the SameSite=Strict cookie is sent) cannot change anything: its form POSTs and its WebSocket to the dashboard are refused by the Origin check and nothing changes, and a login cookie it plants for a dashboard path makes the request unauthenticated instead of another operator's.
import { createServer, request, type RequestOptions, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createBrokerClient, type BrokerClient } from '@terminal-mcp/broker-client';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOperatorAccount } from './helpers/operator-account.js';
import { operatorSessionOf, signInFirstTime, startWebStack, waitFor, type WebStack } from './helpers/web-stack.js';

const MALLORY_PASSWORD = 'the planter of cookies 31';

/** Cookies are not scoped by port: this page sets a login cookie for one dashboard path. */
const plantPage = (token: string) =>
  `<!doctype html><html><body><script>document.cookie = 'tmcp_session=${token}; path=/api/input'; document.body.textContent = 'planted';</script></body></html>`;

function attackerPages(target: string): Record<string, string> {
  const form = (action: string, fields: Record<string, string>, enctype = 'application/x-www-form-urlencoded') =>
    `<!doctype html><html><body><form id="f" method="POST" action="${target}${action}" enctype="${enctype}">${Object.entries(fields)
      .map(([k, v]) => `<input type="hidden" name="${k}" value="${v}">`)
      .join('')}</form><script>document.getElementById('f').submit()</script></body></html>`;
  return {
    '/grant': form('/?/access', { session: 'victim-shell', read: 'on', input: 'on' }),
    '/grant-text': form('/sessions?/access', { session: 'victim-shell', read: 'on', input: 'on' }, 'text/plain'),
    '/logout': form('/logout', {}),
    '/ws': `<!doctype html><html><body><pre id="log">start</pre><script>
      const log = (t) => { document.getElementById('log').textContent += '\\n' + t; };
      const ws = new WebSocket('${target.replace('http', 'ws')}/live');
      ws.onopen = () => { log('open'); ws.send(JSON.stringify({ op: 'subscribe', session: 'claude-readable' })); };
      ws.onmessage = (e) => log('message ' + String(e.data).length);
      ws.onerror = () => log('error');
      ws.onclose = (e) => log('closed ' + e.code);
    </script></body></html>`,
  };
}

describe('cross-origin requests from another local port (production build, real broker)', { timeout: 180_000 }, () => {
  let stack: WebStack;
  let context: BrowserContext;
  let page: Page;
  let attacker: Server;
  let attackerOrigin: string;
  let broker: BrokerClient<'web'>;
  /** Another operator's valid session token, which the attacker page plants. */
  let plantedToken = '';

  beforeAll(async () => {
    stack = await startWebStack();
    await stack.tmux.newSession('claude-readable', 'bash --norc --noprofile');
    await stack.tmux.newSession('victim-shell', 'bash --norc --noprofile');
    const pages = attackerPages(stack.baseUrl);
    attacker = createServer((req, res) => {
      const body = req.url === '/plant' ? plantPage(plantedToken) : pages[req.url ?? ''];
      if (!body) return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'text/html' }).end(body);
    });
    await new Promise<void>((r) => attacker.listen(0, '127.0.0.1', r));
    attackerOrigin = `http://127.0.0.1:${(attacker.address() as AddressInfo).port}`;
    context = await stack.browser.newContext({ locale: 'en-US' });
    page = await context.newPage();
    await signInFirstTime(page, stack);
    // The broker answers grants.* for a signed-in operator only: use the browser's session.
    const token = await operatorSessionOf(page);
    broker = createBrokerClient({ role: 'web', env: stack.broker.env, operatorSession: () => token });
  }, 180_000);

  afterAll(async () => {
    await new Promise((r) => attacker?.close(r));
    await stack?.stop();
  });

  const victimGrant = async () => (await broker.grants.list.query()).sessions.find((s) => s.name === 'victim-shell')!;

  it('refuses an auto-submitted form that would grant access, with the cookie attached', async () => {
    expect(await victimGrant()).toMatchObject({ read_allowed: false, input_allowed: false });
    for (const path of ['/grant', '/grant-text']) {
      const attackPage = await context.newPage();
      const refused = attackPage.waitForResponse((r) => r.request().method() === 'POST' && r.url().startsWith(stack.baseUrl));
      await attackPage.goto(`${attackerOrigin}${path}`);
      const response = await refused;
      expect(response.status()).toBe(403);
      expect(response.request().headers().origin).toBe(attackerOrigin);
      await attackPage.close();
    }
    expect(await victimGrant()).toMatchObject({ read_allowed: false, input_allowed: false, read_granted: false });
    expect((await broker.grants.events.query({ session: 'victim-shell' })).events).toEqual([]);
    // The browser did send the session cookie (loopback ports are the same site): the
    // Origin check, not SameSite, is what refused it.
    expect(stack.web.output()).toMatch(/"event":"web.cross_origin_refused"[^\n]*"cookie":true/);
  });

  it('refuses a cross-origin sign-out', async () => {
    const attackPage = await context.newPage();
    const refused = attackPage.waitForResponse((r) => r.request().method() === 'POST' && r.url().startsWith(stack.baseUrl));
    await attackPage.goto(`${attackerOrigin}/logout`);
    expect((await refused).status()).toBe(403);
    await attackPage.close();
    await page.goto(`${stack.baseUrl}/`);
    expect(new URL(page.url()).pathname).toBe('/');
  });

  it('refuses a cross-origin WebSocket to /live, while the dashboard’s own socket works', async () => {
    const attackPage = await context.newPage();
    const frames: string[] = [];
    attackPage.on('websocket', (ws) => ws.on('framereceived', (f) => frames.push(String(f.payload))));
    await attackPage.goto(`${attackerOrigin}/ws`);
    await waitFor('the socket to close', async () => /closed \d+/.test(await attackPage.locator('#log').innerText()));
    const log = await attackPage.locator('#log').innerText();
    expect(log).not.toContain('open');
    expect(log).not.toContain('message');
    expect(frames).toEqual([]);
    expect(stack.web.output()).toMatch(/"event":"web.cross_origin_refused","method":"UPGRADE"/);
    await attackPage.close();

    // Same browser, same cookie, our own origin: the live terminal gets frames.
    await page.goto(`${stack.baseUrl}/`);
    const term = page.locator('article.session[data-session="claude-readable"] .term-wrap');
    await waitFor('a live frame on the dashboard', async () => Number(await term.getAttribute('data-frames')) > 0);
  });

  it('treats a request carrying a planted login cookie as signed out, never as the planter', async () => {
    await createOperatorAccount(stack.broker.env, 'mallory', MALLORY_PASSWORD);
    const login = await createBrokerClient({ role: 'web', env: stack.broker.env }).auth.login.mutate({ username: 'mallory', password: MALLORY_PASSWORD, sourceIp: '127.0.0.1' });
    plantedToken = login.token;
    const attackPage = await context.newPage();
    await attackPage.goto(`${attackerOrigin}/plant`);
    await waitFor('the cookie to be planted', async () => (await attackPage.locator('body').innerText()).includes('planted'));
    await attackPage.close();
    expect((await context.cookies(`${stack.baseUrl}/api/input`)).filter((c) => c.name === 'tmcp_session')).toHaveLength(2);

    // The operator's own page types into a session: with two login cookies the request
    // has no session (401), instead of running as mallory.
    await page.goto(`${stack.baseUrl}/`);
    const status = await page.evaluate(async () => {
      const r = await fetch('/api/input', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ session: 'victim-shell', text: 'x' }) });
      return r.status;
    });
    expect(status).toBe(401);
    expect(stack.web.output()).toMatch(/"event":"security.session_cookie_planted"/);
    const audit = await broker.audit.listInput.query({ limit: 50 });
    expect(audit.entries.map((e) => e.actor)).not.toContain('web:mallory');
  });

  it('refuses a request naming another Host (DNS rebinding) and a POST with neither Origin nor Referer', async () => {
    const status = (opts: RequestOptions) =>
      new Promise<number>((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port: stack.web.port, ...opts }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on('error', reject);
        req.end();
      });
    expect(await status({ path: '/login', headers: { host: 'attacker.example' } })).toBe(403);
    expect(await status({ path: '/login', headers: { host: `attacker.example:${stack.web.port}` } })).toBe(403);
    expect(await status({ path: '/login', headers: { host: `127.0.0.1:${stack.web.port + 1}` } })).toBe(403);
    expect(await status({ path: '/login', headers: { host: `127.0.0.1:${stack.web.port}` } })).toBe(200);
    expect(await status({ path: '/logout', method: 'POST', headers: { host: `127.0.0.1:${stack.web.port}` } })).toBe(403);
  });
});
