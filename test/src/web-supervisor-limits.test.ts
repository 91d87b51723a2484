// The dashboard shows an agent parked at its usage limit with a live countdown to its resume (Chromium, production build, real broker and tmux); resume now types the resume text once, and cancel leaves the next park untouched at its reset.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createBrokerClient } from '@terminal-mcp/broker-client';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signInFirstTime, startWebStack, waitFor, WEB_TEST_CONFIG, type WebStack } from './helpers/web-stack.js';
import { limitStandInScript, resetLabel } from './helpers/limit-stand-in.js';

describe('dashboard: agents parked at a usage limit (production build, real broker)', { timeout: 240_000 }, () => {
  const root = mkdtempSync(join(tmpdir(), 'tmcp-web-limits-'));
  const log = join(root, 'stand-in.log');
  let stack: WebStack;
  let page: Page;
  const gateway = () => createBrokerClient({ role: 'gateway', socketPath: join(stack.broker.socketDir, 'gateway.sock') });

  beforeAll(async () => {
    writeFileSync(join(root, 'stand-in.py'), limitStandInScript());
    writeFileSync(log, '');
    stack = await startWebStack({
      config: {
        ...WEB_TEST_CONFIG,
        supervisor: { enabled: true, poll_interval_seconds: 3600, max_iterations: 1000, resume_after_limit: { enabled: true, session_patterns: ['claude-limit*'], extra_delay_seconds: 0 } },
      },
    });
    const context = await stack.browser.newContext({ locale: 'en-US', viewport: { width: 1280, height: 900 } });
    page = await context.newPage();
    await signInFirstTime(page, stack);
  }, 180_000);

  afterAll(async () => {
    await stack?.stop();
    rmSync(root, { recursive: true, force: true });
  });

  it('counts down to the reset, resumes now once, parks again on the next limit and cancels it', async () => {
    // Two minutes ahead (the next whole minute at least two minutes away), then five hours later.
    const first = Math.ceil((Date.now() + 120_000) / 60_000) * 60_000;
    const second = first + 5 * 3600_000;
    await stack.tmux.newSession('claude-limit', `python3 ${join(root, 'stand-in.py')} ${resetLabel(first)} ${resetLabel(second)} ${log}`, { width: 120, height: 30 });
    await waitFor('the limit message', async () => (await stack.tmux.tmux(['capture-pane', '-p', '-t', '=claude-limit:'])).includes('/upgrade'));
    const gw = gateway();
    await gw.supervisor.watch.mutate({ session: 'claude-limit' });

    await page.goto(`${stack.baseUrl}/supervisor`);
    const parked = page.locator('[data-target="claude-limit"][data-state="parked"]');
    await waitFor('the park on the page', async () => {
      if ((await parked.count()) > 0) return true;
      await page.reload();
      return false;
    });
    const countdown = parked.getByTestId('countdown');
    expect(await countdown.getAttribute('datetime')).toBe(new Date(first).toISOString());
    const before = Number(await countdown.getAttribute('data-seconds'));
    expect(before).toBeGreaterThan(0);
    expect(before).toBeLessThanOrEqual(180);
    expect(await countdown.innerText()).toMatch(/^resumes in (?:\d+m )?\d+s$/);
    // It ticks in the browser, without a reload.
    await waitFor('the countdown ticking', async () => Number(await countdown.getAttribute('data-seconds')) < before);

    // terminal_list_sessions carries the same reset.
    const { sessions } = await gw.sessions.list.query({});
    expect(sessions.find((s) => s.name === 'claude-limit')?.limit_resets_at).toBe(new Date(first).toISOString());

    // Resume now: typed once, through the guarded path (the stand-in reads exactly one line).
    await parked.getByTestId('resume-now').click();
    await waitFor('the resume text read by the agent', () => readFileSync(log, 'utf8') === 'continue\n');
    const resumed = page.locator('[data-target="claude-limit"][data-state="resumed"]');
    await waitFor('the park shown resumed', async () => {
      if ((await resumed.count()) > 0) return true;
      await page.reload();
      return false;
    });
    expect(await resumed.getByTestId('park-outcome').innerText()).toContain('typed "continue"');

    // Still limited: parked again with the new reset; cancel it.
    await waitFor('the second park', async () => {
      await page.reload();
      return (await parked.count()) > 0;
    });
    expect(await parked.getByTestId('countdown').getAttribute('datetime')).toBe(new Date(second).toISOString());
    await parked.getByTestId('cancel-park').click();
    await waitFor('the park cancelled', async () => (await page.locator('[data-target="claude-limit"][data-state="cancelled"]').count()) > 0);
    expect(readFileSync(log, 'utf8')).toBe('continue\n');
    const { events } = await gw.supervisor.listEvents.query({ watch_key: 'session:claude-limit' });
    expect(events.map((e) => e.event_type)).toEqual(expect.arrayContaining(['limit_reached', 'limit_resumed', 'limit_cancelled']));
  });
});
