// The operator dashboard as an operator uses it (production build, real broker, real tmux, Chromium): readable terminals (>= 12 px), the full view, take-over keystrokes arriving byte-exact in a raw-mode pane, Ctrl-C behind a confirmation, a desktop notification asked for only on a click, a quick answer to a real `read -p [y/N]`, attention order and header count changing live, the sensitive-name explanation, the /audit page listing a refused attempt, and /health.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createBrokerClient } from '@terminal-mcp/broker-client';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cardScreenText, operatorSessionOf, screenshotDir, signInFirstTime, startWebStack, waitFor, type WebStack } from './helpers/web-stack.js';

const SCREENSHOTS = screenshotDir();
const SCREENSHOT_DIR = SCREENSHOTS.path;

const card = (page: Page, name: string) => page.locator(`article.session[data-session="${name}"]`);
const fontPx = (page: Page, scope: string) =>
  page.locator(`${scope} .xterm-rows`).first().evaluate((el) => parseFloat(getComputedStyle(el).fontSize));

/** Prints every chunk it reads from a raw-mode terminal as `H:<hex>` lines. */
const RAW_READER = `import os, tty
tty.setraw(0)
os.write(1, b'READY\\r\\n')
while True:
    os.write(1, ('H:' + os.read(0, 256).hex() + '\\r\\n').encode())
`;

describe('operator dashboard: readable terminals, take-over, attention first, audit (production build)', { timeout: 180_000 }, () => {
  let stack: WebStack;
  let context: BrowserContext;
  let page: Page;
  let rawDir: string | undefined;

  async function hexSeen(session: string): Promise<string> {
    const screen = await stack.tmux.tmux(['capture-pane', '-p', '-J', '-S', '-200', '-t', session]);
    return [...screen.matchAll(/H:([0-9a-f]+)/g)].map((m) => m[1]).join('');
  }

  async function openFull(name: string): Promise<void> {
    await page.goto(`${stack.baseUrl}/`);
    await card(page, name).getByTestId('open-full').click();
    await page.waitForURL(`${stack.baseUrl}/view?session=${name}`);
    await waitFor('the full view draws the pane', async () => Number(await page.locator('.term-wrap.full').getAttribute('data-frames')) > 0);
  }

  beforeAll(async () => {
    stack = await startWebStack();
    rawDir = mkdtempSync(join(tmpdir(), 'tmcp-raw-'));
    const reader = join(rawDir, 'reader.py');
    writeFileSync(reader, RAW_READER);
    await stack.tmux.newSession('claude-keys', `python3 ${reader}`, { width: 100, height: 30 });
    // Wider than any card: must scroll, never shrink.
    await stack.tmux.newSession('claude-wide', 'bash --norc --noprofile', { width: 200, height: 20 });
    await stack.tmux.newSession('claude-ask', 'bash --norc --noprofile', { width: 100, height: 24 });
    await stack.tmux.newSession('claude-zz-later', 'bash --norc --noprofile', { width: 100, height: 24 });
    await stack.tmux.newSession('root-shell', 'bash --norc --noprofile');
    await stack.tmux.newSession('work-plain', 'bash --norc --noprofile');
    await stack.tmux.tmux(['send-keys', '-t', 'claude-wide', '-l', "printf '%0.s=' $(seq 1 190); echo; ls /usr"]);
    await stack.tmux.tmux(['send-keys', '-t', 'claude-wide', 'Enter']);
    context = await stack.browser.newContext({ locale: 'en-US', viewport: { width: 1280, height: 800 } });
    page = await context.newPage();
    await signInFirstTime(page, stack);
    await waitFor('the raw reader is ready', async () => (await stack.tmux.tmux(['capture-pane', '-p', '-t', 'claude-keys'])).includes('READY'));
  }, 240_000);

  afterAll(async () => {
    await stack?.stop();
    SCREENSHOTS.remove();
    if (rawDir) rmSync(rawDir, { recursive: true, force: true });
  });

  it('draws terminals at 12 px or more, on a desktop and on a phone, and scrolls a wide pane inside its card', async () => {
    for (const viewport of [{ width: 1280, height: 800 }, { width: 390, height: 844 }]) {
      await page.setViewportSize(viewport);
      await page.goto(`${stack.baseUrl}/`);
      await waitFor('the wide pane drawn', async () => (await cardScreenText(page, 'claude-wide')).includes('=========='));
      expect(await fontPx(page, 'article.session[data-session="claude-wide"]')).toBeGreaterThanOrEqual(12);
      const wrap = card(page, 'claude-wide').locator('.term-wrap');
      const scroll = await wrap.evaluate((el) => ({ scrollWidth: el.scrollWidth, clientWidth: el.clientWidth }));
      expect(scroll.scrollWidth).toBeGreaterThan(scroll.clientWidth);
      expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(1);
    }
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it('opens a session full screen in one click, at a readable size that is remembered', async () => {
    await openFull('claude-wide');
    expect(await fontPx(page, '.term-wrap.full')).toBeGreaterThanOrEqual(14);
    const before = Number((await page.getByTestId('font-size').innerText()).replace(/\D/g, ''));
    await page.getByTestId('font-larger').click();
    await waitFor('the larger font', async () => (await fontPx(page, '.term-wrap.full')) === before + 1);
    await page.reload();
    await waitFor('the remembered font', async () => (await page.getByTestId('font-size').innerText()).startsWith(`${before + 1}`));
    await page.getByTestId('font-smaller').click();
  });

  it('opens the full view in one click even when a status refresh comes while it loads', async () => {
    // The view's data is held until the dashboard has asked for its own again (a status
    // refresh: after output, and every 10 s) or 12 s have passed. SvelteKit aborts a
    // navigation when an invalidation starts while it loads: the click was lost, and the
    // page stayed on the dashboard, whenever the view loaded slower than the next refresh.
    await page.goto(`${stack.baseUrl}/`);
    let viewHeld = false;
    let dashboardRefreshed!: () => void;
    const refreshWhileHeld = new Promise<void>((resolve) => (dashboardRefreshed = resolve));
    await page.route('**/__data.json*', async (route) => {
      const path = new URL(route.request().url()).pathname;
      if (path === '/view/__data.json') {
        viewHeld = true;
        await Promise.race([refreshWhileHeld, new Promise((r) => setTimeout(r, 12_000))]);
      } else if (viewHeld && path === '/__data.json') {
        dashboardRefreshed();
      }
      await route.continue();
    });
    try {
      await card(page, 'claude-wide').getByTestId('open-full').click();
      await page.waitForURL(`${stack.baseUrl}/view?session=claude-wide`);
      expect(viewHeld).toBe(true);
    } finally {
      await page.unroute('**/__data.json*');
    }
  });

  it('takes over: keystrokes arrive in the pane byte-exact through the guarded input path', async () => {
    await openFull('claude-keys');
    await page.getByTestId('takeover').click();
    await page.getByTestId('takeover-on').waitFor();
    await page.keyboard.type('ab Z');
    await page.keyboard.press('Escape');
    await page.keyboard.press('ArrowUp');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Backspace');
    await page.keyboard.press('Enter');
    const expected = '6162205a' + '1b' + '1b5b41' + '09' + '7f' + '0d';
    await waitFor('the bytes in the pane', async () => (await hexSeen('claude-keys')) === expected);
  });

  it('asks before Ctrl-C: cancel sends nothing, confirm sends exactly 0x03', async () => {
    const before = await hexSeen('claude-keys');
    await page.keyboard.press('Control+c');
    const dialog = page.getByTestId('confirm-key');
    await dialog.waitFor({ state: 'visible' });
    await page.getByTestId('confirm-cancel').click();
    await dialog.waitFor({ state: 'hidden' });
    // A marker sent after the cancelled key proves the queue moved on without it.
    await page.locator('.term-wrap.full .xterm-helper-textarea').focus();
    await page.keyboard.type('q');
    await waitFor('the marker', async () => (await hexSeen('claude-keys')) === `${before}71`);
    await page.getByRole('button', { name: 'Ctrl-C' }).click();
    await dialog.waitFor({ state: 'visible' });
    await page.getByTestId('confirm-send').click();
    await waitFor('Ctrl-C in the pane', async () => (await hexSeen('claude-keys')) === `${before}7103`);
  });

  it('answers a real read -p "[y/N]" prompt with a quick-answer button', async () => {
    await stack.tmux.tmux(['send-keys', '-t', 'claude-ask', '-l', 'read -p "Continue? [y/N] " a; echo "ANSWER=$a"']);
    await stack.tmux.tmux(['send-keys', '-t', 'claude-ask', 'Enter']);
    await openFull('claude-ask');
    await waitFor('WAITING_INPUT', async () => (await page.getByTestId('view-status').getAttribute('data-status')) === 'WAITING_INPUT');
    const yes = page.locator('[data-testid=quick-answer][data-keys="y+Enter"]');
    await yes.waitFor();
    expect(await page.locator('[data-testid=quick-answer]').evaluateAll((els) => els.map((e) => e.getAttribute('data-keys')))).toEqual(['y+Enter', 'n+Enter', 'Enter']);
    await yes.click();
    await waitFor('the answer in the pane', async () => (await stack.tmux.tmux(['capture-pane', '-p', '-t', 'claude-ask'])).includes('ANSWER=y'));
  });

  it('puts a session that starts waiting first, live, with the count in the header, the tab title and an opt-in desktop notification', async () => {
    // Records what the page asks of the Notification API (the browser's own prompt cannot
    // be observed headless): permission requests and notifications shown.
    await context.addInitScript(() => {
      const w = window as unknown as { tmcpAsked: number; tmcpShown: string[]; Notification: unknown };
      w.tmcpAsked = 0;
      w.tmcpShown = [];
      class RecordingNotification {
        static permission: NotificationPermission = 'default';
        static requestPermission(): Promise<NotificationPermission> {
          w.tmcpAsked += 1;
          RecordingNotification.permission = 'granted';
          return Promise.resolve('granted');
        }
        constructor(title: string) {
          w.tmcpShown.push(title);
        }
      }
      w.Notification = RecordingNotification;
    });
    await page.goto(`${stack.baseUrl}/`);
    await page.getByTestId('notify-toggle').waitFor();
    expect(await page.evaluate(() => (window as unknown as { tmcpAsked: number }).tmcpAsked)).toBe(0);
    await page.getByTestId('notify-toggle').click();
    await waitFor('permission asked on the click', async () => (await page.evaluate(() => (window as unknown as { tmcpAsked: number }).tmcpAsked)) === 1);
    expect(await page.getByTestId('notify-toggle').getAttribute('aria-pressed')).toBe('true');
    await waitFor('no session waiting yet', async () => (await page.getByTestId('attention-count').getAttribute('data-count')) === '0');
    const firstCard = () => page.locator('article.session').first().getAttribute('data-session');
    expect(await firstCard()).not.toBe('claude-zz-later');
    await page.evaluate(() => ((window as unknown as { notReloaded: boolean }).notReloaded = true));
    await stack.tmux.tmux(['send-keys', '-t', 'claude-zz-later', '-l', 'read -p "Deploy now? [y/N] " a']);
    await stack.tmux.tmux(['send-keys', '-t', 'claude-zz-later', 'Enter']);
    await waitFor('the waiting session first', async () => (await firstCard()) === 'claude-zz-later');
    await waitFor('the header count', async () => (await page.getByTestId('attention-count').getAttribute('data-count')) === '1');
    await waitFor('the tab title', async () => (await page.title()).startsWith('(1) '));
    expect(await page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded)).toBe(true);
    await waitFor('the desktop notification', async () => (await page.evaluate(() => (window as unknown as { tmcpShown: string[] }).tmcpShown)).includes('claude-zz-later is waiting for input'));
    expect(await card(page, 'claude-zz-later').locator('[data-status]').first().getAttribute('data-status')).toBe('WAITING_INPUT');
    mkdirSync(SCREENSHOT_DIR, { recursive: true });
    await page.screenshot({ path: join(SCREENSHOT_DIR, 'attention-desktop.png') });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({ path: join(SCREENSHOT_DIR, 'attention-phone.png') });
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it('explains why a sensitive name cannot be granted and shows the config line to add', async () => {
    await page.goto(`${stack.baseUrl}/`);
    await card(page, 'root-shell').getByTestId('lock').click();
    const dialog = page.getByTestId('access-dialog');
    await dialog.waitFor();
    expect(await dialog.getByTestId('sensitive-explain').innerText()).toMatch(/allowed_session_patterns/);
    expect(await dialog.getByTestId('sensitive-config').innerText()).toContain('  - "root-shell"');
    const apply = dialog.getByTestId('access-apply');
    expect(await apply.isDisabled()).toBe(true);
    const describedBy = await apply.getAttribute('aria-describedby');
    expect(describedBy).toBe('access-why');
    expect(await dialog.locator(`#${describedBy}`).isVisible()).toBe(true);
    await dialog.locator('button.ghost').click();
  });

  it('says why the full view takes no input for a view-only session; the server refuses it anyway, and /audit lists the refusal', async () => {
    // View-only: the operator may read work-plain but not type into it.
    // grants.* act for a signed-in operator: the browser's own session token.
    const token = await operatorSessionOf(page);
    const web = createBrokerClient({ role: 'web', env: stack.broker.env, operatorSession: () => token });
    await web.grants.set.mutate({ session: 'work-plain', read: true, input: false });
    await page.goto(`${stack.baseUrl}/view?session=work-plain`);
    const takeover = page.getByTestId('takeover');
    await takeover.waitFor();
    expect(await takeover.isDisabled()).toBe(true);
    expect(await takeover.getAttribute('aria-describedby')).toBe('input-why');
    const why = page.locator('#input-why');
    expect(await why.isVisible()).toBe(true);
    expect(await why.getAttribute('data-reason')).toBe('notGranted');
    expect(await page.locator('[data-key]').count()).toBe(0);
    expect(await page.getByTestId('send-text').count()).toBe(0);
    // Whatever the page offers, a same-origin POST for work-plain is refused by the broker.
    const refused = await page.evaluate(async () => {
      const r = await fetch('/api/input', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ session: 'work-plain', keys: ['Enter'] }) });
      return { status: r.status, body: (await r.json()) as { ok: boolean; error?: { code: string } } };
    });
    expect(refused.body.ok).toBe(false);
    expect(refused.status).toBe(403);
    expect(refused.body.error?.code).toBe('INPUT_NOT_ALLOWED');

    await page.goto(`${stack.baseUrl}/audit?decision=BLOCKED`);
    // Away from the dashboard the header still counts the session left waiting above.
    await waitFor('the header count on /audit', async () => (await page.getByTestId('attention-count').getAttribute('data-count')) === '1');
    const row = page.locator('[data-testid=audit-input] tr[data-session="work-plain"][data-decision="BLOCKED"]').first();
    await row.waitFor();
    expect(await row.innerText()).toContain('web:admin');
    expect(await row.getAttribute('data-tool')).toBe('dashboard_keys');
    expect(await row.getByTestId('audit-code').innerText()).toBe('INPUT_NOT_ALLOWED');
    // Take-over input is recorded as the dashboard's.
    await page.goto(`${stack.baseUrl}/audit?session=claude-keys&decision=SENT`);
    await page.locator('[data-testid=audit-input] tr[data-tool="dashboard_text"]').first().waitFor();
    await page.locator('[data-testid=audit-input] tr[data-tool="dashboard_keys"]').first().waitFor();
    // Read summaries: the dashboard's own status reads are there.
    await page.goto(`${stack.baseUrl}/audit`);
    await page.locator('[data-testid=audit-reads] tr[data-read-session="claude-ask"]').first().waitFor();
    await page.screenshot({ path: join(SCREENSHOT_DIR, 'audit-desktop.png'), fullPage: false });
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(1);
    await page.screenshot({ path: join(SCREENSHOT_DIR, 'audit-phone.png') });
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it('refuses take-over input from another origin (403) or without a session (401); nothing reaches the pane', async () => {
    const before = await hexSeen('claude-keys');
    const cookie = (await context.cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
    const post = (headers: Record<string, string>) =>
      fetch(`${stack.baseUrl}/api/input`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ session: 'claude-keys', text: 'X' }) });
    expect((await post({ cookie, origin: 'http://evil.example' })).status).toBe(403);
    expect((await post({ origin: stack.baseUrl })).status).toBe(401);
    // The same request with the session and our origin does arrive (the refusals were the guards).
    expect((await post({ cookie, origin: stack.baseUrl })).status).toBe(200);
    await waitFor('the allowed byte', async () => (await hexSeen('claude-keys')) === `${before}58`);
  });

  it('screenshots the full view with quick answers (desktop and phone)', async () => {
    await stack.tmux.tmux(['send-keys', '-t', 'claude-ask', '-l', 'clear; ls /usr; read -p "Overwrite config? [y/N] " a']);
    await stack.tmux.tmux(['send-keys', '-t', 'claude-ask', 'Enter']);
    await openFull('claude-ask');
    await page.locator('[data-testid=quick-answer]').first().waitFor();
    await page.screenshot({ path: join(SCREENSHOT_DIR, 'view-desktop.png') });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.locator('.term-wrap.full .xterm-rows').waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(1);
    await page.screenshot({ path: join(SCREENSHOT_DIR, 'view-phone.png') });
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it('answers /health without signing in: 200 with the broker up, 503 without it, nothing sensitive', async () => {
    const up = await fetch(`${stack.baseUrl}/health`);
    expect(up.status).toBe(200);
    const body = (await up.json()) as Record<string, unknown>;
    expect(body).toEqual({ status: 'ok', broker: 'up', ready: true });
    await stack.broker.stop();
    await waitFor('503 once the broker is gone', async () => (await fetch(`${stack.baseUrl}/health`)).status === 503);
    expect(await (await fetch(`${stack.baseUrl}/health`)).json()).toEqual({ status: 'unavailable', broker: 'down', ready: null });
  });
});
