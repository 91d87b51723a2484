// A restricted session's content (a unique marker printed in it) is absent from every HTTP response and WebSocket frame the browser receives, on every page; the layout works at desktop and phone sizes (screenshots).
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createBrokerClient } from '@terminal-mcp/broker-client';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cardScreenText, operatorSessionOf, screenshotDir, signInFirstTime, startWebStack, waitFor, type WebStack } from './helpers/web-stack.js';

const SCREENSHOTS = screenshotDir();
const SCREENSHOT_DIR = SCREENSHOTS.path;

describe('restricted session content never reaches the browser (production build, real broker)', { timeout: 180_000 }, () => {
  let stack: WebStack;
  let context: BrowserContext;
  let page: Page;
  const marker = `RESTRICTED-${randomBytes(6).toString('hex')}`;
  const seen: { where: string; text: string }[] = [];

  function collect(p: Page): void {
    p.on('response', (r) => {
      void r
        .body()
        .then((b) => seen.push({ where: `${r.status()} ${r.url()}`, text: b.toString('latin1') }))
        .catch(() => {});
    });
    p.on('websocket', (ws) => {
      ws.on('framereceived', (f) => seen.push({ where: `ws ${ws.url()}`, text: String(f.payload) }));
    });
  }

  beforeAll(async () => {
    stack = await startWebStack();
    // The marker is split in the command line so it appears whole only in the output.
    const [a, b] = [marker.slice(0, 8), marker.slice(8)];
    const secret = await stack.tmux.newSession('secret-ops', 'bash --norc --noprofile', { width: 100, height: 30 });
    await stack.tmux.tmux(['send-keys', '-t', secret.sessionId, '-l', `A=${a}; B=${b}; while true; do echo "$A$B"; sleep 1; done`]);
    await stack.tmux.tmux(['send-keys', '-t', secret.sessionId, 'Enter']);
    await stack.tmux.newSession('claude-agent', 'bash --norc --noprofile', { width: 100, height: 30 });
    await stack.tmux.tmux(['send-keys', '-t', 'claude-agent', '-l', "printf '\\e[1;32m✔ tests passed\\e[0m  \\e[33m3 files changed\\e[0m\\n'; ls -la /usr | head -12"]);
    await stack.tmux.tmux(['send-keys', '-t', 'claude-agent', 'Enter']);
    await stack.tmux.newSession('build-server', 'bash --norc --noprofile', { width: 100, height: 30 });
    await stack.tmux.tmux(['send-keys', '-t', 'build-server', '-l', 'for i in 1 2 3; do echo "[build] step $i/3 ok"; done']);
    await stack.tmux.tmux(['send-keys', '-t', 'build-server', 'Enter']);
    await stack.tmux.newSession('codex-review', 'bash --norc --noprofile', { width: 100, height: 30 });
    await waitFor('the marker on the restricted pane', async () => (await stack.tmux.tmux(['capture-pane', '-p', '-t', secret.sessionId])).includes(marker));

    context = await stack.browser.newContext({ locale: 'en-US', viewport: { width: 1280, height: 860 } });
    page = await context.newPage();
    collect(page);
    await signInFirstTime(page, stack);
    // One non-whitelisted session granted view-only (through the broker, as the dashboard does).
    const token = await operatorSessionOf(page);
    const broker = createBrokerClient({ role: 'web', env: stack.broker.env, operatorSession: () => token });
    await broker.grants.set.mutate({ session: 'build-server', read: true, input: false, expires_in_s: 8 * 3600 });
  }, 180_000);

  afterAll(async () => {
    await stack?.stop();
    SCREENSHOTS.remove();
  });

  it('shows the restricted session with metadata and a badge only, on every page and in both languages', async () => {
    await page.goto(`${stack.baseUrl}/`);
    const secret = page.locator('article.session[data-session="secret-ops"]');
    await secret.getByTestId('not-granted').waitFor();
    expect(await secret.locator('.xterm-rows').count()).toBe(0);
    // Readable sessions are live meanwhile (frames keep arriving for them).
    const agent = page.locator('article.session[data-session="claude-agent"] .term-wrap');
    await waitFor('claude-agent frames', async () => Number(await agent.getAttribute('data-frames')) > 0);
    await waitFor('build-server frames', async () => Number(await page.locator('article.session[data-session="build-server"] .term-wrap').getAttribute('data-frames')) > 0);

    // Open the access dialog for it (without applying), switch language, visit the table.
    await secret.getByTestId('lock').click();
    await page.getByTestId('access-dialog').waitFor();
    await page.getByTestId('access-dialog').locator('button.ghost').click();
    await page.locator('header [data-lang=vi]').click();
    await page.locator('header [data-lang=en]').click();
    await page.goto(`${stack.baseUrl}/sessions`);
    await page.locator('tr[data-session="secret-ops"] [data-access=none]').waitFor();
    await page.goto(`${stack.baseUrl}/`);
    await waitFor('claude-agent frames again', async () => Number(await page.locator('article.session[data-session="claude-agent"] .term-wrap').getAttribute('data-frames')) > 0);
    // A subscription attempt for the restricted session over our own socket gets a refusal, not content.
    const refusal = await page.evaluate(
      (name) =>
        new Promise<string>((resolve) => {
          const ws = new WebSocket(`ws://${location.host}/live`);
          ws.onopen = () => ws.send(JSON.stringify({ op: 'subscribe', session: name }));
          ws.onmessage = (e) => {
            resolve(String(e.data));
            ws.close();
          };
          setTimeout(() => resolve('timeout'), 20_000);
        }),
      'secret-ops',
    );
    expect(JSON.parse(refusal)).toMatchObject({ kind: 'error', session: 'secret-ops', code: 'SESSION_NOT_ALLOWED' });
    // Give outstanding bodies time to be read, then check everything the browser got.
    await page.waitForLoadState('networkidle');
    await waitFor('some collected responses', () => seen.length > 5);
    const leaks = seen.filter((s) => s.text.includes(marker)).map((s) => s.where);
    expect(leaks).toEqual([]);
    expect(seen.some((s) => s.where.startsWith('ws '))).toBe(true);
  });

  it('renders the dashboard and the session table on desktop and phone', async () => {
    mkdirSync(SCREENSHOT_DIR, { recursive: true });
    for (const [label, viewport] of [
      ['desktop', { width: 1280, height: 860 }],
      ['phone', { width: 390, height: 844 }],
    ] as const) {
      await page.setViewportSize(viewport);
      await page.goto(`${stack.baseUrl}/`);
      await waitFor('live frames', async () => Number(await page.locator('article.session[data-session="claude-agent"] .term-wrap').getAttribute('data-frames')) > 0);
      await waitFor('agent output drawn', async () => (await cardScreenText(page, 'claude-agent')).includes('tests passed'));
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow).toBeLessThanOrEqual(1);
      await page.screenshot({ path: join(SCREENSHOT_DIR, `dashboard-${label}.png`) });

      await page.goto(`${stack.baseUrl}/sessions`);
      await page.locator('tr[data-session="build-server"]').waitFor();
      await page.locator('tr[data-session="codex-review"] input[type=checkbox]').first().check();
      await page.locator('tr[data-session="secret-ops"] input[type=checkbox]').first().check();
      await page.getByTestId('bulk-bar').waitFor();
      expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(1);
      await page.screenshot({ path: join(SCREENSHOT_DIR, `sessions-${label}.png`) });
    }
    const leaks = seen.filter((s) => s.text.includes(marker)).map((s) => s.where);
    expect(leaks).toEqual([]);
  });
});
