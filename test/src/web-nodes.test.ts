// Guards the dashboard's nodes page in headless Chromium against a real sshd: sessions of
// other hosts grouped by node with a health badge, the filter, a session the node's read
// rules refuse shown without its content, a node whose host key is unknown shown as down
// with the hint, and the page's data refused on web.sock without an operator session.
import { join } from 'node:path';
import { createBrokerClient } from '@terminal-mcp/broker-client';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { failureOf } from './helpers/broker-failure.js';
import { sshdUnavailable, startSshd, type TestSshd } from './helpers/sshd.js';
import { startTmuxServer, type TmuxTestServer } from './helpers/tmux-server.js';
import { signInFirstTime, startWebStack, WEB_TEST_CONFIG, type WebStack } from './helpers/web-stack.js';

const unavailable = sshdUnavailable();
if (unavailable !== undefined) console.log(`skipping the dashboard nodes test: ${unavailable}`);

let remote: TmuxTestServer;
let sshd: TestSshd;
let stack: WebStack;
let page: Page;

describe.skipIf(unavailable !== undefined)('the dashboard nodes page', () => {
  beforeAll(async () => {
    remote = await startTmuxServer();
    await remote.newSession('claude-remote', `sh -c 'echo remote-screen-text; exec sleep 3600'`);
    await remote.newSession('private-notes', 'sleep 3600');
    sshd = await startSshd();
    const node = { ssh: sshd.destination, tmux_socket: remote.socketName, identity_file: sshd.clientKey };
    stack = await startWebStack({
      config: {
        ...WEB_TEST_CONFIG,
        nodes: [
          { name: 'gpu', ...node, known_hosts: sshd.knownHosts },
          { name: 'stranger', ...node, known_hosts: sshd.emptyKnownHosts },
        ],
      },
    });
    const context = await stack.browser.newContext({ locale: 'en-US', viewport: { width: 1280, height: 900 } });
    page = await context.newPage();
    await signInFirstTime(page, stack);
  });

  afterAll(async () => {
    await stack?.stop();
    await sshd?.stop();
    await remote?.kill();
  });

  it('groups the sessions of other hosts by node, with a health badge and a filter', async () => {
    // The node comes up on its own after the broker starts: reload until its badge is green.
    const gpu = page.locator('[data-testid="node"][data-node="gpu"]');
    await expect
      .poll(
        async () => {
          await page.goto(`${stack.baseUrl}/nodes`);
          return (await gpu.locator('[data-testid="node-badge"]').textContent())?.trim();
        },
        { timeout: 60_000, interval: 500 },
      )
      .toMatch(/^working, \d+ ms$/);
    const rows = gpu.locator('[data-testid="node-session"]');
    expect(await rows.evaluateAll((els) => els.map((e) => e.getAttribute('data-session')))).toEqual(['gpu:claude-remote', 'gpu:private-notes']);
    const readable = gpu.locator('[data-session="gpu:claude-remote"]');
    expect(await readable.locator('td').nth(2).textContent()).toBe('sleep');
    const refused = gpu.locator('[data-session="gpu:private-notes"]');
    expect(await refused.textContent()).toContain('not readable');
    expect(await refused.locator('td').nth(2).textContent()).toBe('');

    const stranger = page.locator('[data-testid="node"][data-node="stranger"]');
    expect(await stranger.locator('[data-testid="node-badge"]').textContent()).toContain('failed');
    expect(await stranger.locator('[data-testid="node-down"]').textContent()).toContain(`ssh-keyscan -p ${sshd.port} 127.0.0.1 >> ${sshd.emptyKnownHosts}`);
    expect(await page.locator('[data-testid="node-badge-local"]').textContent()).toContain('This host');

    await page.fill('[data-testid="nodes-filter"]', 'claude');
    await expect.poll(() => page.locator('[data-testid="node-session"]').count()).toBe(1);
    expect(await page.locator('[data-testid="node"]').count()).toBe(1);
    await page.fill('[data-testid="nodes-filter"]', 'stranger');
    await expect.poll(() => page.locator('[data-testid="node"]').evaluateAll((els) => els.map((e) => e.getAttribute('data-node')))).toEqual(['stranger']);
  });

  it('refuses the page\'s data on web.sock to a caller without an operator session', async () => {
    const anonymous = createBrokerClient({ role: 'web', socketPath: join(stack.broker.socketDir, 'web.sock') });
    expect((await failureOf(anonymous.nodes.overview.query())).code).toBe('UNAUTHENTICATED');
  });
});
