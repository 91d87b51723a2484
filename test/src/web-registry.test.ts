// Guards the dashboard's gone-sessions page (production build, real broker, Chromium): a killed session stays listed with its status and its last redacted screen, its transcript viewable read-only and downloadable as a .cast, for a signed-in operator only; the page still answers, saying tmux is not running, once the tmux server has exited.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
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
    // The sessions exist before the broker does, and are recorded by default (pipe-pane).
    stack = await startWebStack({
      config: { ...WEB_TEST_CONFIG, session_lifecycle: { reconcile_interval_seconds: 5 } },
      beforeBroker: async (tmux) => {
        await tmux.newSession('claude-keep', 'exec sleep 3600');
        await tmux.newSession('claude-gone', "bash --norc --noprofile -c 'read go; echo GONE-MARK token=ghp_abcdefghijklmnopqrstuvwxyz0123456789; exec sleep 3600'");
      },
    });
    page = await (await stack.browser.newContext({ locale: 'en-US' })).newPage();
    await signInFirstTime(page, stack);
  }, 180_000);

  afterAll(async () => {
    await stack?.stop();
  });

  it('shows a killed session with its last redacted screen', async () => {
    const gateway = createBrokerClient({ role: 'gateway', env: stack.broker.env });
    // The broker's timer records readable sessions' screens (every 5 s here): wait, by
    // reading registry.db itself, until it has this one before the session goes away.
    // It prints once the broker records its output (a transcript's meta.json names it).
    const transcripts = join(stack.broker.stateDir, 'transcripts');
    const recorded = () =>
      existsSync(transcripts) && readdirSync(transcripts).some((d) => existsSync(join(transcripts, d, 'meta.json')) && readFileSync(join(transcripts, d, 'meta.json'), 'utf8').includes('"claude-gone"'));
    await waitFor('the broker to record claude-gone', recorded, 90_000);
    await stack.tmux.tmux(['send-keys', '-t', '=claude-gone:', 'Enter']);
    const registry = new Database(join(stack.broker.stateDir, 'registry.db'), { readonly: true, fileMustExist: true });
    try {
      const screenOf = () => (registry.prepare("SELECT last_screen FROM session_registry WHERE name = 'claude-gone' AND status = 'ACTIVE'").get() as { last_screen: string | null } | undefined)?.last_screen;
      await waitFor('the registry to record the screen', () => screenOf()?.includes('GONE-MARK'), 90_000);
    } finally {
      registry.close();
    }
    await stack.tmux.tmux(['kill-session', '-t', '=claude-gone']);
    const db = () => gateway.sessions.list.query({ include_dead: true });
    const gone = await waitFor('the registry to record it gone', async () => (await db()).dead_sessions?.find((d) => d.name === 'claude-gone' && d.last_screen !== null && d.transcript_id !== undefined));
    const transcriptId = gone.transcript_id!;

    await page.goto(`${stack.baseUrl}/registry`);
    const row = page.locator('[data-testid=registry] [data-session="claude-gone"]');
    await row.waitFor();
    expect(await row.getAttribute('data-status')).toBe('KILLED');
    await row.locator('summary').click();
    const screen = await row.locator('pre').textContent();
    expect(screen).toContain('GONE-MARK');
    expect(screen).not.toContain('ghp_abcdefghijklmnopqrstuvwxyz0123456789');

    // Its transcript: a read-only view and a .cast download, redacted.
    await row.locator('[data-testid=transcript-view]').click();
    const text = page.locator('[data-testid=transcript-text]');
    await text.waitFor();
    expect(await text.textContent()).toContain('GONE-MARK token=[REDACTED:');
    expect(await page.locator('textarea, input[type=text]').count()).toBe(0);
    const [download] = await Promise.all([page.waitForEvent('download'), page.locator('[data-testid=transcript-download]').click()]);
    expect(download.suggestedFilename()).toBe('claude-gone.cast');
    const cast = readFileSync((await download.path())!, 'utf8');
    const [header, ...events] = cast.trimEnd().split('\n');
    expect(JSON.parse(header!)).toMatchObject({ version: 2, width: expect.any(Number), height: expect.any(Number) });
    expect(events.length).toBeGreaterThan(0);
    for (const e of events) expect(JSON.parse(e)).toEqual([expect.any(Number), 'o', expect.any(String)]);
    expect(cast).toContain('GONE-MARK');
    expect(cast).not.toContain('ghp_abcdefghijklmnopqrstuvwxyz0123456789');
    // Signed out (a fresh context), the download is not served.
    const anonymous = await (await stack.browser.newContext()).newPage();
    const refused = await anonymous.request.get(`${stack.baseUrl}/registry/transcripts/${transcriptId}/download`, { maxRedirects: 0 });
    expect(refused.status()).not.toBe(200);

    // web.sock without an operator session cannot list gone sessions.
    const anonymousWeb = createBrokerClient({ role: 'web', env: stack.broker.env });
    await expect(anonymousWeb.sessions.list.query({ include_dead: true })).rejects.toMatchObject({ data: { app: { code: 'UNAUTHENTICATED' } } });
  });

  it('still lists what died once the tmux server has exited, and says tmux is not running', async () => {
    // The user's last session ends and their server exits with it (as a server without
    // the test helper's exit-empty off does).
    await stack.tmux.tmux(['set-option', '-s', 'exit-empty', 'on']);
    await stack.tmux.tmux(['kill-session', '-t', '=claude-keep']);
    await waitFor('the tmux server to exit', async () => {
      try {
        await stack.tmux.tmux(['list-sessions']);
        return false;
      } catch {
        return true;
      }
    }, 60_000);
    await waitFor('the registry page to answer without tmux', async () => {
      await page.goto(`${stack.baseUrl}/registry`);
      return (await page.locator('[data-testid=registry] [data-session="claude-keep"]').count()) === 1;
    }, 90_000);
    expect(await page.locator('[data-testid=tmux-not-running]').textContent()).toContain('tmux is not running');
    expect(await page.locator('[data-testid=registry] [data-session="claude-gone"]').count()).toBe(1);
    expect(await page.locator('[role=alert]').count()).toBe(0);
  });
});
