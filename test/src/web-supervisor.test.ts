// The dashboard's supervisor view on a real broker and the production build: a new event appears without a reload (and in the header badge), the operator acknowledges it, approves an agent's proposed prompt in the review queue (then sees it sent), and pauses the watch back to observe_only.
import { join } from 'node:path';
import { createBrokerClient } from '@terminal-mcp/broker-client';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signInFirstTime, startWebStack, waitFor, WEB_TEST_CONFIG, type WebStack } from './helpers/web-stack.js';

describe('dashboard supervisor view (production build, real broker)', { timeout: 180_000 }, () => {
  let stack: WebStack;
  let page: Page;
  const gateway = () => createBrokerClient({ role: 'gateway', socketPath: join(stack.broker.socketDir, 'gateway.sock') });

  beforeAll(async () => {
    stack = await startWebStack({ config: { ...WEB_TEST_CONFIG, supervisor: { enabled: true, v2_enabled: true, poll_interval_seconds: 3600 } } });
    await stack.tmux.newSession('claude-sup', `bash --norc --noprofile -c 'read x; read -p "Ship it? [y/N] " a; echo "shipped=$a"; sleep 600'`, { width: 100, height: 30 });
    const context = await stack.browser.newContext({ locale: 'en-US', viewport: { width: 1280, height: 900 } });
    page = await context.newPage();
    await signInFirstTime(page, stack);
  }, 180_000);

  afterAll(async () => {
    await stack?.stop();
  });

  it('shows a new event live, acknowledges it, approves the proposed prompt and pauses the watch', async () => {
    const gw = gateway();
    await gw.supervisor.watch.mutate({ session: 'claude-sup' });
    await gw.supervisor2.setPolicy.mutate({ session: 'claude-sup', mode: 'suggest_only' });
    await page.goto(`${stack.baseUrl}/supervisor`);
    await page.locator('[data-watch="session:claude-sup"]').waitFor();
    await page.evaluate(() => ((window as unknown as { notReloaded: boolean }).notReloaded = true));
    // Give the page's event stream a moment to connect, then make the pane prompt.
    await new Promise((r) => setTimeout(r, 500));
    await stack.tmux.tmux(['send-keys', '-t', 'claude-sup', 'Enter']);
    const item = page.locator('[data-type="attention_required"]');
    await waitFor('the attention event, pushed', async () => (await item.count()) > 0);
    expect(await page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded)).toBe(true);
    expect(await item.first().innerText()).toContain('Ship it? [y/N]');
    await waitFor('the header badge', async () => (await page.getByTestId('supervisor-badge').count()) === 1 && Number(await page.getByTestId('supervisor-badge').innerText()) >= 1);

    // An agent claims and proposes; the operator approves it in the review queue.
    const eventId = Number(await item.first().getAttribute('data-event'));
    const action = await gw.supervisor2.claimEvent.mutate({ event_id: eventId });
    await gw.supervisor2.submitDecision.mutate({ action_id: action.id, prompt: 'y' });
    await page.reload();
    await page.locator(`[data-action="${action.id}"][data-state="decided"]`).waitFor();
    await page.locator(`[data-action="${action.id}"]`).getByTestId('approve').click();
    await page.locator(`[data-action="${action.id}"][data-state="approved"]`).waitFor();
    expect(await gw.supervisor2.executeSend.mutate({ action_id: action.id })).toMatchObject({ sent: true });
    await waitFor('the answer in the pane', async () => (await stack.tmux.tmux(['capture-pane', '-p', '-t', 'claude-sup'])).includes('shipped=y'));

    await page.reload();
    await page.locator(`[data-event="${eventId}"]`).getByTestId('ack').click();
    await waitFor('the event acknowledged', async () => (await page.locator(`[data-event="${eventId}"]`).count()) === 0);
    await page.locator('[data-watch="session:claude-sup"]').getByTestId('pause').click();
    await waitFor('the watch paused', async () => (await gw.supervisor2.getPolicy.query({ session: 'claude-sup' })).mode === 'observe_only');
    const { actions } = await gw.supervisor2.listActions.query({ watch_key: 'session:claude-sup' });
    expect(actions[0]).toMatchObject({ id: action.id, approved_by: expect.stringMatching(/^web:/) });
  });
});
