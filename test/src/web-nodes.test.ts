// Guards the dashboard's nodes page in headless Chromium against a real sshd: sessions of
// other hosts grouped by node with a health badge, the filter, a session the node's read
// rules refuse shown without its content, a node whose host key is unknown shown as down
// with the hint, and the page's data refused on web.sock without an operator session; a
// readable node session's name opens its live screen (/view), which shows what is typed
// into the remote pane and never a secret it prints, and says when its node is down (also
// when the view is opened meanwhile) and goes on when it is back. On the dashboard, node
// sessions are cards with their node's badge, a down node is said to be down, and a node
// session is granted from its card like this host's; the Gone sessions page shows a node
// session that ended, as node:session with its node.
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { createBrokerClient } from '@terminal-mcp/broker-client';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { failureOf } from './helpers/broker-failure.js';
import { sshdUnavailable, startSshd, type TestSshd } from './helpers/sshd.js';
import { startTmuxServer, type TmuxTestServer } from './helpers/tmux-server.js';
import { operatorSessionOf, signInFirstTime, startWebStack, waitFor, WEB_TEST_CONFIG, type WebStack } from './helpers/web-stack.js';

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
    await remote.newSession('claude-live', 'bash --norc --noprofile', { width: 100, height: 30 });
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
    expect(await rows.evaluateAll((els) => els.map((e) => e.getAttribute('data-session')))).toEqual(['gpu:claude-live', 'gpu:claude-remote', 'gpu:private-notes']);
    const readable = gpu.locator('[data-session="gpu:claude-remote"]');
    expect(await readable.locator('td').nth(2).textContent()).toBe('sleep');
    const refused = gpu.locator('[data-session="gpu:private-notes"]');
    expect(await refused.textContent()).toContain('not readable');
    expect(await refused.locator('td').nth(2).textContent()).toBe('');

    const stranger = page.locator('[data-testid="node"][data-node="stranger"]');
    expect(await stranger.locator('[data-testid="node-badge"]').textContent()).toContain('failed');
    expect(await stranger.locator('[data-testid="node-down"]').textContent()).toContain(`ssh-keyscan -p ${sshd.port} 127.0.0.1 >> ${sshd.emptyKnownHosts}`);
    expect(await page.locator('[data-testid="node-badge-local"]').textContent()).toContain('This host');

    await page.fill('[data-testid="nodes-filter"]', 'claude-rem');
    await expect.poll(() => page.locator('[data-testid="node-session"]').count()).toBe(1);
    expect(await page.locator('[data-testid="node"]').count()).toBe(1);
    await page.fill('[data-testid="nodes-filter"]', 'stranger');
    await expect.poll(() => page.locator('[data-testid="node"]').evaluateAll((els) => els.map((e) => e.getAttribute('data-node')))).toEqual(['stranger']);
  });

  it('shows a node session that ended on the Gone sessions page, named node:session, with its node', async () => {
    await remote.newSession('claude-short', 'sleep 3600');
    // The node's registry pass (on the node's own %sessions-changed) has its row ...
    const registry = new Database(join(stack.broker.stateDir, 'registry.db'), { readonly: true, fileMustExist: true });
    try {
      await waitFor('the node registry row', () => registry.prepare("SELECT 1 FROM session_registry WHERE node = 'gpu' AND name = 'claude-short' AND status = 'ACTIVE'").get() !== undefined);
    } finally {
      registry.close();
    }
    // ... and a kill there makes it gone.
    await remote.tmux(['kill-session', '-t', '=claude-short']);
    const row = page.locator('[data-testid="registry"] [data-session="gpu:claude-short"]');
    await expect
      .poll(
        async () => {
          await page.goto(`${stack.baseUrl}/registry`);
          return row.count();
        },
        { timeout: 60_000, interval: 500 },
      )
      .toBe(1);
    expect(await row.getAttribute('data-status')).toBe('KILLED');
    expect(await row.getAttribute('data-node')).toBe('gpu');
    expect(await row.locator('[data-testid="registry-node"]').textContent()).toBe('on gpu');
  });

  it('opens a node session\'s live screen from the nodes page: typed text appears, a secret is redacted', async () => {
    await page.goto(`${stack.baseUrl}/nodes`);
    // A session the node's read rules refuse has no link to a screen.
    expect(await page.locator('[data-session="gpu:private-notes"] [data-testid="node-session-open"]').count()).toBe(0);
    await page.locator('[data-session="gpu:claude-live"] [data-testid="node-session-open"]').click();
    await page.waitForURL(`${stack.baseUrl}/view?session=${encodeURIComponent('gpu:claude-live')}`);
    expect(await page.getByTestId('view-node').textContent()).toContain('gpu');
    const screen = page.locator('.term-wrap.full .xterm-rows');
    await waitFor('the remote prompt drawn', async () => /[$#]/.test(await screen.innerText()));

    await remote.tmux(['send-keys', '-t', '=claude-live:', 'echo typed-on-node-$((6*7))', 'Enter']);
    await waitFor('the typed text drawn', async () => /^typed-on-node-42/m.test(await screen.innerText()));
    // The key is whole only in the output (the command line holds two halves).
    await remote.tmux(['send-keys', '-t', '=claude-live:', `printf '%s%s\\n' sk-ant-api03- ${'Wv8'.repeat(12)}AbCdEfGhIjKl; echo key-printed`, 'Enter']);
    await waitFor('the key line drawn', async () => /^key-printed/m.test(await screen.innerText()));
    const text = await screen.innerText();
    expect(text).toContain('[REDACTED:anthropic_api_key]');
    expect(text).not.toContain(`sk-ant-api03-${'Wv8'.repeat(12)}`);
    expect(await page.locator('.term-wrap.full').getAttribute('data-live-state')).toBe('live');
  });

  it('types into a node session from its live screen (take-over), through the node\'s input path', async () => {
    // Still on the view of gpu:claude-live; the node's patterns (claude-*) allow input.
    await page.getByTestId('takeover').click();
    await page.getByTestId('takeover-on').waitFor();
    await page.keyboard.type('echo from-dashboard-$((5*5))');
    await page.keyboard.press('Enter');
    await waitFor('the keystrokes in the remote pane', async () => /^from-dashboard-25$/m.test(await remote.tmux(['capture-pane', '-p', '-t', '=claude-live:'])));
    await waitFor('and on the live screen', async () => /^from-dashboard-25/m.test(await page.locator('.term-wrap.full .xterm-rows').innerText()));
  });

  it('shows node sessions on the dashboard with their node, says a down node is down, and grants a node session from its card', async () => {
    await page.goto(stack.baseUrl);
    const refused = page.locator('article.session[data-session="gpu:private-notes"]');
    await refused.waitFor();
    expect(await refused.getByTestId('card-node').textContent()).toBe('gpu');
    await refused.getByTestId('not-granted').waitFor();
    expect(await page.locator('article.session[data-session="gpu:claude-remote"] [data-testid="card-node"]').textContent()).toBe('gpu');
    // The node whose host key is unknown is said to be down, not shown as a host without sessions.
    expect(await page.locator('[data-testid="dash-node-not-up"][data-node="stranger"]').textContent()).toContain('Host stranger is down');

    // Grant view-only through the card's access dialog, as for this host's sessions.
    await refused.getByTestId('lock').click();
    const dialog = page.getByTestId('access-dialog');
    await dialog.waitFor();
    await dialog.locator('[data-preset=view]').click();
    const posted = page.waitForResponse((r) => r.request().method() === 'POST' && r.url().includes('?/access'));
    await dialog.getByTestId('access-apply').click();
    expect((await posted).status()).toBe(200);
    await dialog.waitFor({ state: 'detached' });
    const granted = page.locator('article.session[data-session="gpu:private-notes"][data-readable="true"]');
    await granted.waitFor();
    const token = await operatorSessionOf(page);
    const web = createBrokerClient({ role: 'web', env: stack.broker.env, operatorSession: () => token });
    const grant = (await web.grants.list.query()).sessions.find((x) => x.name === 'gpu:private-notes')?.grant;
    expect(grant).toMatchObject({ read: true, input: false, state: 'active', granted_by: expect.any(String) });
    expect(grant?.pinned.server_pid).toBe(Number(await remote.tmux(['display-message', '-p', '#{pid}'])));
    await web.grants.revoke.mutate({ session: 'gpu:private-notes' });
  });

  it('refuses the page\'s data on web.sock to a caller without an operator session', async () => {
    const anonymous = createBrokerClient({ role: 'web', socketPath: join(stack.broker.socketDir, 'web.sock') });
    expect((await failureOf(anonymous.nodes.overview.query())).code).toBe('UNAUTHENTICATED');
  });

  it('says on the live screen that the node is not reachable, with the hint, and goes on when it is back', async () => {
    await page.goto(`${stack.baseUrl}/view?session=${encodeURIComponent('gpu:claude-live')}`);
    const wrap = page.locator('.term-wrap.full');
    await waitFor('the live screen', async () => (await wrap.getAttribute('data-live-state')) === 'live');
    await sshd.kill();
    try {
      const outage = page.getByTestId('term-unavailable');
      await outage.waitFor();
      expect(await outage.getAttribute('data-error-code')).toBe('NODE_UNAVAILABLE');
      // The node's reason, then its hint after a dash (what to do), as the nodes page shows them.
      expect(await outage.textContent()).toMatch(/^Host not reachable \(node gpu is .+\); the view goes on when it is back\. — \S/);
    } finally {
      await sshd.start();
    }
    await waitFor('the live screen again', async () => (await page.locator('.term-wrap.full').getAttribute('data-live-state')) === 'live');
    await remote.tmux(['send-keys', '-t', '=claude-live:', 'echo back-again-$((9*9))', 'Enter']);
    await waitFor('new output drawn after the outage', async () => /^back-again-81/m.test(await page.locator('.term-wrap.full .xterm-rows').innerText()));
  });

  it('opens the view of a node session while its node is down: says so, then shows the screen once the node is back', async () => {
    await sshd.kill();
    try {
      await waitFor('the node down', async () => {
        await page.goto(`${stack.baseUrl}/view?session=${encodeURIComponent('gpu:claude-live')}`);
        return (await page.getByTestId('view-node-down').count()) === 1;
      });
      expect(await page.getByTestId('view-node-down').textContent()).toMatch(/^Host not reachable \(node gpu is .+\): its sessions are unknown for now\./);
      // The web server cannot list the session now and leaves it to the broker, which says why.
      const outage = page.getByTestId('term-unavailable');
      await outage.waitFor();
      expect(await outage.getAttribute('data-error-code')).toBe('NODE_UNAVAILABLE');
    } finally {
      await sshd.start();
    }
    await remote.tmux(['send-keys', '-t', '=claude-live:', 'echo opened-while-down-$((7*7))', 'Enter']);
    await waitFor('the screen once the node is back', async () => /^opened-while-down-49/m.test(await page.locator('.term-wrap.full .xterm-rows').innerText()));
  });
});
