// Guards Remove on the dashboard's Gone sessions page (production build, real broker and tmux, Chromium, at 1280x800 and 390x844): a gone session becomes a tombstone only after the confirmation step (cancel changes nothing), pinned to the id the page showed, audited under the operator; the registry-cleanup rules hold (a protected name is refused with its reason, and stays).
import { join } from 'node:path';
import { createBrokerClient } from '@terminal-mcp/broker-client';
import Database from 'better-sqlite3';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signInFirstTime, startWebStack, WEB_TEST_CONFIG, waitFor, waitForHydration, type WebStack } from './helpers/web-stack.js';

const SIZES = [
  [1280, 800],
  [390, 844],
] as const;
const GONE = SIZES.map(([w]) => `claude-rm-${w}`);
const KEPT = 'claude-kept';

describe('dashboard: removing a gone session', { timeout: 180_000 }, () => {
  let stack: WebStack;
  let page: Page;
  const ids = new Map<string, string>();
  const dead = async () => (await createBrokerClient({ role: 'gateway', env: stack.broker.env }).sessions.list.query({ include_dead: true })).dead_sessions ?? [];
  const row = (name: string) => page.locator(`[data-testid=registry] [data-session="${name}"]`);
  async function open(width: number, height: number) {
    await page.setViewportSize({ width, height });
    await page.goto(`${stack.baseUrl}/registry`);
    await waitForHydration(page);
  }
  async function expectWithinWidth(testId: string, width: number) {
    const box = await page.getByTestId(testId).boundingBox();
    expect(box, testId).not.toBeNull();
    expect(box!.x + box!.width).toBeLessThanOrEqual(width);
  }

  beforeAll(async () => {
    stack = await startWebStack({
      config: {
        ...WEB_TEST_CONFIG,
        permissions: { ...WEB_TEST_CONFIG.permissions, session_lifecycle: true },
        session_lifecycle: { protected_sessions: [KEPT] },
      },
      beforeBroker: async (tmux) => {
        // One session stays, so the tmux server outlives the others (they are KILLED, not MISSING).
        for (const name of [...GONE, KEPT, 'claude-alive']) await tmux.newSession(name, 'exec sleep 3600');
      },
    });
    const gateway = createBrokerClient({ role: 'gateway', env: stack.broker.env });
    for (const name of [...GONE, KEPT]) {
      ids.set(name, await waitFor(`${name} listed`, async () => (await gateway.sessions.list.query({})).sessions.find((s) => s.name === name)?.session_id, 60_000));
      await stack.tmux.tmux(['kill-session', '-t', `=${name}`]);
    }
    await waitFor('all gone', async () => (await dead()).filter((d) => d.status === 'KILLED').length === GONE.length + 1, 60_000);
    page = await (await stack.browser.newContext({ locale: 'en-US' })).newPage();
    await signInFirstTime(page, stack);
  }, 180_000);

  afterAll(async () => {
    await stack?.stop();
  });

  it.each(SIZES)('at %ix%i: Remove asks first, then tombstones exactly that session and says so', async (width, height) => {
    const name = `claude-rm-${width}`;
    const id = ids.get(name)!;
    await open(width, height);
    await row(name).getByTestId('forget').click();
    expect(await row(name).getByTestId('forget-confirm').textContent()).toBe(`Remove ${name} (${id}) from the gone sessions? It stays as a tombstone that records who removed it.`);
    await row(name).getByTestId('forget-cancel').click();
    expect((await dead()).find((d) => d.name === name)?.status).toBe('KILLED');

    await row(name).getByTestId('forget').click();
    await row(name).getByTestId('forget-yes').click();
    await page.getByTestId('forget-outcome').waitFor();
    expect(await page.getByTestId('forget-outcome').textContent()).toBe(`Removed ${name} (${id}) from the gone sessions.`);
    await expectWithinWidth('forget-outcome', width);
    expect((await dead()).find((d) => d.name === name)).toMatchObject({ status: 'DELETED', deleted_by: 'web:admin' });
    await page.locator(`[data-testid=registry] [data-session="${name}"][data-status="DELETED"]`).waitFor();
    expect(await row(name).getByTestId('forget').count()).toBe(0);
  });

  it('refuses a protected session with the rule that keeps it, and it stays', async () => {
    await open(390, 844);
    await row(KEPT).getByTestId('forget').click();
    await row(KEPT).getByTestId('forget-yes').click();
    const refused = row(KEPT).getByTestId('forget-error');
    await refused.waitFor();
    expect(await refused.textContent()).toContain('protected_sessions');
    await expectWithinWidth('forget-error', 390);
    expect((await dead()).find((d) => d.name === KEPT)?.status).toBe('KILLED');
  });

  it('audits every removal under the signed-in operator', () => {
    const audit = new Database(join(stack.broker.stateDir, 'audit.db'), { readonly: true, fileMustExist: true });
    try {
      const rows = audit.prepare("SELECT session_name AS session, decision, actor FROM input_audit WHERE tool = 'terminal_session_forget' ORDER BY id").all();
      expect(rows).toEqual([
        ...GONE.flatMap((session) => [{ session, decision: 'SENT', actor: 'web:admin' }]),
        { session: KEPT, decision: 'BLOCKED', actor: 'web:admin' },
      ]);
    } finally {
      audit.close();
    }
  });
});
