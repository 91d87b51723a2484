// From the dashboard the operator grants read, then input, to a non-whitelisted session, sends a prompt that lands in the pane and in the audit, sees live output without a reload, and revokes; the server refuses input once revoked.
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { createBrokerClient, type BrokerClient } from '@terminal-mcp/broker-client';
import Database from 'better-sqlite3';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cardScreenText, operatorSessionOf, signInFirstTime, startWebStack, waitFor, type WebStack } from './helpers/web-stack.js';

const card = (page: Page, name: string) => page.locator(`article.session[data-session="${name}"]`);

async function applyPreset(page: Page, name: string, preset: 'both' | 'view' | 'revoke'): Promise<void> {
  await card(page, name).getByTestId('lock').click();
  const dialog = page.getByTestId('access-dialog');
  await dialog.waitFor();
  await dialog.locator(`[data-preset=${preset}]`).click();
  const posted = page.waitForResponse((r) => r.request().method() === 'POST' && r.url().includes('?/access'));
  await dialog.getByTestId('access-apply').click();
  expect((await posted).status()).toBe(200);
  await dialog.waitFor({ state: 'detached' });
}

describe('dashboard grants, input and live output (production build, real broker)', { timeout: 180_000 }, () => {
  let stack: WebStack;
  let page: Page;
  let broker: BrokerClient<'web'>;
  const tag = randomBytes(4).toString('hex');

  beforeAll(async () => {
    stack = await startWebStack();
    await stack.tmux.newSession('claude-live', 'bash --norc --noprofile', { width: 100, height: 30 });
    await stack.tmux.newSession('work-shell', 'bash --norc --noprofile', { width: 100, height: 30 });
    await stack.tmux.newSession('bulk-a', 'bash --norc --noprofile');
    await stack.tmux.newSession('bulk-b', 'bash --norc --noprofile');
    const context = await stack.browser.newContext({ locale: 'en-US', viewport: { width: 1280, height: 900 } });
    page = await context.newPage();
    await signInFirstTime(page, stack);
    // The broker answers grants.* for a signed-in operator only: use the browser's session.
    const token = await operatorSessionOf(page);
    broker = createBrokerClient({ role: 'web', env: stack.broker.env, operatorSession: () => token });
  }, 180_000);

  afterAll(async () => {
    await stack?.stop();
  });

  it('lists every session: the whitelisted one readable, the other restricted', async () => {
    await card(page, 'claude-live').waitFor();
    expect(await card(page, 'claude-live').getAttribute('data-readable')).toBe('true');
    expect(await card(page, 'work-shell').getAttribute('data-readable')).toBe('false');
    expect(await card(page, 'work-shell').getByTestId('not-granted').isVisible()).toBe(true);
    expect(await card(page, 'work-shell').getByTestId('send-text').count()).toBe(0);
  });

  it('shows new pane output live, without a reload', async () => {
    await waitFor('the first live frame', async () => Number(await card(page, 'claude-live').locator('.term-wrap').getAttribute('data-frames')) > 0);
    await page.evaluate(() => ((window as unknown as { notReloaded: boolean }).notReloaded = true));
    await stack.tmux.tmux(['send-keys', '-t', 'claude-live', '-l', `echo LIVE-${tag}-$((6*7))`]);
    await stack.tmux.tmux(['send-keys', '-t', 'claude-live', 'Enter']);
    await waitFor('live output in the terminal', async () => (await cardScreenText(page, 'claude-live')).includes(`LIVE-${tag}-42`));
    expect(await page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded)).toBe(true);
  });

  it('grants read (view only): the session becomes readable but takes no input', async () => {
    await stack.tmux.tmux(['send-keys', '-t', 'work-shell', '-l', `echo BEFORE-GRANT-${tag}`]);
    await stack.tmux.tmux(['send-keys', '-t', 'work-shell', 'Enter']);
    await applyPreset(page, 'work-shell', 'view');
    await waitFor('work-shell readable', async () => (await card(page, 'work-shell').getAttribute('data-readable')) === 'true');
    await waitFor('work-shell screen', async () => (await cardScreenText(page, 'work-shell')).includes(`BEFORE-GRANT-${tag}`));
    expect(await card(page, 'work-shell').getByTestId('send-text').count()).toBe(0);
    const row = (await broker.grants.list.query()).sessions.find((s) => s.name === 'work-shell')!;
    expect(row).toMatchObject({ read_allowed: true, read_granted: true, input_granted: false });
  });

  it('grants input too, and a prompt sent from the text box lands in the pane and in the audit', async () => {
    await applyPreset(page, 'work-shell', 'both');
    const box = card(page, 'work-shell').getByTestId('send-text');
    await box.waitFor();
    // A shell holds the pane: the box says that typing here reaches every session.
    await card(page, 'work-shell').getByTestId('shell-warning').waitFor();
    await box.fill(`echo PROMPT-${tag}-$((3*5))`);
    const posted = page.waitForResponse((r) => r.request().method() === 'POST' && r.url().includes('?/send'));
    await card(page, 'work-shell').getByTestId('send').click();
    expect((await posted).status()).toBe(200);

    // The pane ran it (the shell expanded $((3*5))): seen by tmux itself...
    await waitFor('the prompt output in the pane', async () => (await stack.tmux.tmux(['capture-pane', '-p', '-t', 'work-shell'])).includes(`PROMPT-${tag}-15`));
    // ...and on the dashboard, live.
    await waitFor('the prompt output on the page', async () => (await cardScreenText(page, 'work-shell')).includes(`PROMPT-${tag}-15`));

    // The input audit names the operator the session token belongs to (web.sock serves no
    // audit reads: the dashboard never calls one), read from audit.db itself.
    const db = new Database(join(stack.broker.stateDir, 'audit.db'), { readonly: true });
    try {
      const rows = db.prepare("SELECT actor, preview FROM input_audit WHERE session_name = 'work-shell' AND decision = 'SENT'").all() as { actor: string; preview: string | null }[];
      expect(rows.find((r) => (r.preview ?? '').includes(`PROMPT-${tag}`))?.actor).toBe('web:admin');
    } finally {
      db.close();
    }

    const events = await broker.grants.events.query({ session: 'work-shell' });
    expect(events.events.map((e) => e.actor)).toContain('admin');
  });

  it('revokes from the open session; the server then refuses input whatever the page sends', async () => {
    await card(page, 'work-shell').locator('button.name').click();
    await card(page, 'work-shell').getByTestId('open-access').waitFor();
    await card(page, 'work-shell').getByTestId('open-access').click();
    const dialog = page.getByTestId('access-dialog');
    await dialog.locator('[data-preset=revoke]').click();
    const posted = page.waitForResponse((r) => r.request().method() === 'POST' && r.url().includes('?/access'));
    await dialog.getByTestId('access-apply').click();
    expect((await posted).status()).toBe(200);
    await waitFor('work-shell restricted again', async () => (await card(page, 'work-shell').getAttribute('data-readable')) === 'false');
    expect(await card(page, 'work-shell').getByTestId('send-text').count()).toBe(0);

    // A same-origin POST straight to the action (the box is gone, the server decides).
    const result = await page.evaluate(async () => {
      const r = await fetch('/?/send', {
        method: 'POST',
        body: new URLSearchParams({ session: 'work-shell', text: 'echo SHOULD-NOT-RUN', enter: 'on' }),
        headers: { 'x-sveltekit-action': 'true' },
      });
      return { status: r.status, body: await r.text() };
    });
    expect(result.body).toMatch(/SESSION_NOT_ALLOWED|INPUT_NOT_ALLOWED|INPUT_DISABLED/);
    expect(await stack.tmux.tmux(['capture-pane', '-p', '-t', 'work-shell'])).not.toContain('SHOULD-NOT-RUN');
    const row = (await broker.grants.list.query()).sessions.find((s) => s.name === 'work-shell')!;
    expect(row).toMatchObject({ read_allowed: false, input_allowed: false });
  });

  it('grants view-only to several sessions at once from the table, and detaches one from the main page', async () => {
    await page.goto(`${stack.baseUrl}/sessions`);
    await page.getByTestId('filter').fill('bulk-');
    await page.getByTestId('only-not-whitelisted').check();
    await page.locator('tr[data-session="work-shell"]').waitFor({ state: 'detached' });
    await page.locator('thead input[type=checkbox]').check();
    await page.getByTestId('bulk-bar').waitFor();
    await page.getByTestId('bulk-access').click();
    const dialog = page.getByTestId('access-dialog');
    await dialog.locator('[data-preset=view]').click();
    const posted = page.waitForResponse((r) => r.request().method() === 'POST' && r.url().includes('?/access'));
    await dialog.getByTestId('access-apply').click();
    expect((await posted).status()).toBe(200);
    await waitFor('both rows granted', async () => (await page.locator('[data-access=read]').count()) === 2);
    const rows = (await broker.grants.list.query()).sessions.filter((r) => r.name.startsWith('bulk-'));
    expect(rows.map((r) => [r.name, r.read_granted, r.input_granted])).toEqual([
      ['bulk-a', true, false],
      ['bulk-b', true, false],
    ]);

    // Detach bulk-a: it leaves the main page (a browser-side preference, shared by both pages).
    await page.locator('tr[data-session="bulk-a"]').getByTestId('attach-toggle').uncheck();
    await page.goto(`${stack.baseUrl}/`);
    await card(page, 'bulk-b').waitFor();
    expect(await card(page, 'bulk-a').count()).toBe(0);
    await page.goto(`${stack.baseUrl}/sessions`);
    await page.locator('tr[data-session="bulk-a"]').getByTestId('attach-toggle').check();
    await page.goto(`${stack.baseUrl}/`);
    await card(page, 'bulk-a').waitFor();
  });
});
