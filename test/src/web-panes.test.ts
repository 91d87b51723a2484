// The full view's pane tabs (issue 29 item 4; production build, real broker, real tmux, Chromium): a session with a split window shows one tab per pane, a hostile window name as plain text; choosing a tab moves the live view to that pane (its own text, not the active pane's), and take-over keystrokes then arrive in that pane only, byte-exact.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signInFirstTime, startWebStack, waitFor, type WebStack } from './helpers/web-stack.js';

/** Prints a label, then every chunk it reads from a raw-mode terminal as `H:<hex>` lines. */
const RAW_READER = `import os, sys, tty
tty.setraw(0)
os.write(1, (sys.argv[1] + '\\r\\n').encode())
while True:
    os.write(1, ('H:' + os.read(0, 256).hex() + '\\r\\n').encode())
`;

describe('the full view follows the pane tab it shows', { timeout: 180_000 }, () => {
  let stack: WebStack;
  let context: BrowserContext;
  let page: Page;
  let rawDir: string | undefined;
  let first = '';
  let split = '';

  const hexSeen = async (paneId: string) =>
    [...(await stack.tmux.tmux(['capture-pane', '-p', '-J', '-S', '-200', '-t', paneId])).matchAll(/H:([0-9a-f]+)/g)].map((m) => m[1]).join('');

  beforeAll(async () => {
    stack = await startWebStack();
    rawDir = mkdtempSync(join(tmpdir(), 'tmcp-panes-web-'));
    const reader = join(rawDir, 'reader.py');
    writeFileSync(reader, RAW_READER);
    const s = await stack.tmux.newSession('claude-panes', `python3 ${reader} FIRST-PANE-LABEL`, { width: 100, height: 30 });
    first = s.paneId;
    // -d: the first pane stays the active one.
    split = (await stack.tmux.tmux(['split-window', '-d', '-P', '-F', '#{pane_id}', '-t', first, `python3 ${reader} SPLIT-PANE-LABEL`])).trim();
    await stack.tmux.tmux(['rename-window', '-t', first, '--', '<img src=x onerror=alert(1)>;kill-server']);
    context = await stack.browser.newContext({ locale: 'en-US', viewport: { width: 1280, height: 800 } });
    page = await context.newPage();
    page.on('dialog', () => {
      throw new Error('a window name ran as markup');
    });
    await signInFirstTime(page, stack);
    for (const p of [first, split]) await waitFor(`reader ${p} ready`, async () => /PANE-LABEL/.test(await stack.tmux.tmux(['capture-pane', '-p', '-t', p])));
  }, 240_000);

  afterAll(async () => {
    await stack?.stop();
    if (rawDir) rmSync(rawDir, { recursive: true, force: true });
  });

  it('shows a tab per pane, names as text, and the active pane first', async () => {
    await page.goto(`${stack.baseUrl}/view?session=claude-panes`);
    const tabs = page.getByTestId('pane-tab');
    await waitFor('two tabs', async () => (await tabs.count()) === 2);
    expect(await tabs.nth(0).innerText()).toContain('<img src=x onerror=alert(1)>;kill-server');
    expect(await page.locator('.pane-tab img').count()).toBe(0);
    expect(await page.locator('.pane-tab.current').getAttribute('data-pane')).toBe(first);
    await waitFor('the active pane drawn', async () => (await page.locator('.term-wrap.full .xterm-rows').innerText()).includes('FIRST-PANE-LABEL'));
  });

  it('moves the live view and take-over to the chosen pane', async () => {
    await page.locator(`.pane-tab[data-pane="${split}"]`).click();
    await page.waitForURL(`${stack.baseUrl}/view?session=claude-panes&pane=${encodeURIComponent(split)}`);
    await waitFor('the split pane drawn', async () => (await page.locator('.term-wrap.full .xterm-rows').innerText()).includes('SPLIT-PANE-LABEL'));
    expect(await page.locator('.term-wrap.full .xterm-rows').innerText()).not.toContain('FIRST-PANE-LABEL');
    expect(await page.locator('.term-wrap.full').getAttribute('data-pane')).toBe(split);

    await page.getByTestId('takeover').click();
    await page.getByTestId('takeover-on').waitFor();
    await page.keyboard.type('pq');
    await page.keyboard.press('Enter');
    await waitFor('the bytes in the split pane', async () => (await hexSeen(split)) === '70710d');
    expect(await hexSeen(first)).toBe('');
  });
});
