// The first sign-in uses the bootstrap password and must change it before anything else; the change deletes the file; failed logins back off (RATE_LIMITED shown).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrapPassword, changePassword, OPERATOR_PASSWORD, startWebStack, submitLogin, waitFor, type WebStack } from './helpers/web-stack.js';

describe('dashboard sign-in (production build, real broker)', { timeout: 180_000 }, () => {
  let stack: WebStack;
  let context: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    stack = await startWebStack();
    context = await stack.browser.newContext({ locale: 'en-US' });
    page = await context.newPage();
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
  });

  it('sends an anonymous visitor to the login page', async () => {
    await page.goto(`${stack.baseUrl}/`);
    expect(new URL(page.url()).pathname).toBe('/login');
    await page.goto(`${stack.baseUrl}/sessions`);
    expect(new URL(page.url()).pathname).toBe('/login');
  });

  it('signs in with the bootstrap password and forces a password change before anything else', async () => {
    const first = await bootstrapPassword(stack.broker.stateDir);
    await submitLogin(page, stack.baseUrl, 'admin', first);
    await page.waitForURL(`${stack.baseUrl}/change-password`);
    await expect(page.getByTestId('forced-change').isVisible()).resolves.toBe(true);

    // Every other page sends the browser back to the change form.
    for (const path of ['/', '/sessions']) {
      await page.goto(`${stack.baseUrl}${path}`);
      expect(new URL(page.url()).pathname).toBe('/change-password');
    }
    // A mutation other than the change itself is refused while the change is pending.
    const origin = stack.baseUrl;
    const refused = await page.evaluate(async (o) => {
      const r = await fetch(`${o}/sessions?/access`, { method: 'POST', body: new URLSearchParams({ session: 'x', read: 'on' }), headers: { 'x-sveltekit-action': 'true' } });
      return r.status;
    }, origin);
    expect(refused).toBe(403);

    // The rules are shown; a rule violation comes back as a readable message.
    expect(await page.locator('main ul.rules').innerText()).toContain('At least 12');
    await changePassword(page, first, OPERATOR_PASSWORD, 'a-different-confirmation');
    await waitFor('the mismatch message', async () => /not the same/.test(await page.locator('main [role=alert]').innerText().catch(() => '')));
    await changePassword(page, first, 'admin-password-123');
    await waitFor('the user-name rule', async () => /user name/.test(await page.locator('main [role=alert]').innerText().catch(() => '')));
    expect(await page.locator('main [role=alert]').getAttribute('data-error-code')).toBe('INVALID_ARGUMENT');

    await changePassword(page, first, OPERATOR_PASSWORD);
    await page.waitForURL(`${stack.baseUrl}/`);
    expect(existsSync(join(stack.broker.stateDir, 'webauth-bootstrap.txt'))).toBe(false);
    await page.locator('h1').waitFor();
  });

  it('issues an HttpOnly, SameSite=Strict session cookie', async () => {
    const cookies = await context.cookies(stack.baseUrl);
    const session = cookies.find((c) => c.name === 'tmcp_session');
    expect(session).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/', secure: false });
    expect(await page.evaluate(() => document.cookie)).not.toContain('tmcp_session');
  });

  it('signs out and the old cookie no longer works', async () => {
    const before = (await context.cookies(stack.baseUrl)).find((c) => c.name === 'tmcp_session')!;
    await page.locator('header form.logout button[type=submit]').click();
    await page.waitForURL(`${stack.baseUrl}/login`);
    await context.addCookies([{ ...before }]);
    await page.goto(`${stack.baseUrl}/`);
    expect(new URL(page.url()).pathname).toBe('/login');
  });

  /** Submits the login form and returns the error code the page then shows. */
  async function loginAttempt(username: string, password: string): Promise<string | null> {
    const posted = page.waitForResponse((r) => r.request().method() === 'POST' && new URL(r.url()).pathname === '/login');
    await submitLogin(page, stack.baseUrl, username, password);
    const response = await posted;
    const body = await response.text();
    const code = /\b(UNAUTHENTICATED|RATE_LIMITED)\b/.exec(body)?.[1] ?? null;
    if (code) await waitFor(`the ${code} message`, async () => (await page.locator('main [role=alert]').getAttribute('data-error-code')) === code);
    return code;
  }

  it('answers a wrong password and an unknown user alike, then backs off with RATE_LIMITED', async () => {
    const first = await loginAttempt('admin', 'not-the-password-at-all');
    expect(['UNAUTHENTICATED', 'RATE_LIMITED']).toContain(first);
    const alert = page.locator('main [role=alert]');
    if (first === 'UNAUTHENTICATED') expect(await alert.innerText()).toBe('Wrong user name or password, or your session ended.');

    // Exponential backoff per source address: quick retries soon hit the limit, and the
    // wait grows with each failure (keep going until it is long enough to test below).
    await waitFor(
      'RATE_LIMITED with a wait of 4 s or more',
      async () => {
        if ((await loginAttempt('nobody-here', 'another-wrong-one')) !== 'RATE_LIMITED') return false;
        const seconds = Number(/Try again in (\d+) s\./.exec(await alert.innerText())?.[1] ?? '0');
        return seconds >= 4;
      },
      90_000,
      0,
    );

    // Even the right password is held back while the limit lasts.
    expect(await loginAttempt('admin', OPERATOR_PASSWORD)).toBe('RATE_LIMITED');
    expect(new URL(page.url()).pathname).toBe('/login');
  });

  it('switches language from the header without a reload and remembers it', async () => {
    await page.goto(`${stack.baseUrl}/login`);
    await page.evaluate(() => ((window as unknown as { marker: number }).marker = 42));
    await page.locator('header [data-lang=vi]').click();
    await waitFor('Vietnamese heading', async () => (await page.locator('main h1').innerText()) === 'Đăng nhập');
    expect(await page.evaluate(() => (window as unknown as { marker?: number }).marker)).toBe(42);
    expect(await page.evaluate(() => document.documentElement.lang)).toBe('vi');
    await page.reload();
    expect(await page.locator('main h1').innerText()).toBe('Đăng nhập');
    await page.locator('header [data-lang=en]').click();
  });

  it('follows the browser language on a first visit', async () => {
    const vi = await stack.browser.newContext({ locale: 'vi-VN' });
    const p = await vi.newPage();
    await p.goto(`${stack.baseUrl}/login`);
    expect(await p.locator('main h1').innerText()).toBe('Đăng nhập');
    expect(await p.evaluate(() => document.documentElement.lang)).toBe('vi');
    await vi.close();
  });
});
