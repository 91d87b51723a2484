// Guards the dashboard's gone-sessions page (production build, real broker, Chromium): a killed session stays listed with its status and its last redacted screen, for a signed-in operator only.
import { join } from 'node:path';
import { createBrokerClient } from '@terminal-mcp/broker-client';
import Database from 'better-sqlite3';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signInFirstTime, startWebStack, WEB_TEST_CONFIG, waitFor, type WebStack } from './helpers/web-stack.js';

describe('dashboard gone sessions', { timeout: 180_000 }, () => {
  let stack: WebStack;
  let page: Page;

  beforeAll(async () => {
    stack = await startWebStack({ config: { ...WEB_TEST_CONFIG, session_lifecycle: { reconcile_interval_seconds: 5 } } });
    await stack.tmux.newSession('claude-keep', 'exec sleep 3600');
    await stack.tmux.newSession('claude-gone', "bash --norc --noprofile -c 'echo GONE-MARK token=ghp_abcdefghijklmnopqrstuvwxyz0123456789; exec sleep 3600'");
    page = await (await stack.browser.newContext({ locale: 'en-US' })).newPage();
    await signInFirstTime(page, stack);
  }, 180_000);

  afterAll(async () => {
    await stack?.stop();
  }, 60_000);

  it('shows a killed session with its last redacted screen', async () => {
    const gateway = createBrokerClient({ role: 'gateway', env: stack.broker.env });
    // The broker's timer records readable sessions' screens (every 5 s here): wait, by
    // reading registry.db itself, until it has this one before the session goes away.
    const registry = new Database(join(stack.broker.stateDir, 'registry.db'), { readonly: true, fileMustExist: true });
    try {
      const screenOf = () => (registry.prepare("SELECT last_screen FROM session_registry WHERE name = 'claude-gone' AND status = 'ACTIVE'").get() as { last_screen: string | null } | undefined)?.last_screen;
      await waitFor('the registry to record the screen', () => screenOf()?.includes('GONE-MARK'), 90_000);
    } finally {
      registry.close();
    }
    await stack.tmux.tmux(['kill-session', '-t', '=claude-gone']);
    const db = () => gateway.sessions.list.query({ include_dead: true });
    await waitFor('the registry to record it gone', async () => (await db()).dead_sessions?.some((d) => d.name === 'claude-gone' && d.last_screen !== null));

    await page.goto(`${stack.baseUrl}/registry`);
    const row = page.locator('[data-testid=registry] [data-session="claude-gone"]');
    await row.waitFor();
    expect(await row.getAttribute('data-status')).toBe('KILLED');
    await row.locator('summary').click();
    const screen = await row.locator('pre').textContent();
    expect(screen).toContain('GONE-MARK');
    expect(screen).not.toContain('ghp_abcdefghijklmnopqrstuvwxyz0123456789');

    // web.sock without an operator session cannot list gone sessions.
    const anonymousWeb = createBrokerClient({ role: 'web', env: stack.broker.env });
    await expect(anonymousWeb.sessions.list.query({ include_dead: true })).rejects.toMatchObject({ data: { app: { code: 'UNAUTHENTICATED' } } });
  });
});
