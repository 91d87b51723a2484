// Guards that every read reports one truth: terminal_status, terminal_status_bound and terminal_input_context classify a quiet pane alike while a watcher is attached (quiet time from window activity, which attaching does not bump), and terminal_list_sessions' last_activity follows a pane's output.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { TmuxTestServer } from '../../../../test/src/helpers/tmux-server.js';
import { configSchema } from '../config/schema.js';
import type { BrokerDeps } from '../rpc/deps.js';
import type { PaneWatcher } from '../effects/tmux/pane-watch.js';
import { RECENT_OUTPUT_SECONDS } from '../policy/status.js';
import { createContextInner } from '../rpc/context.js';
import { gatewayRouter } from '../rpc/roles/gateway.js';
import { createCallerFactory } from '../rpc/trpc.js';
import { startLiveTestBroker, type LiveTestBroker } from '../testing/live-broker.testkit.js';

const CONFIG = configSchema.parse({
  permissions: { terminal_read: true, terminal_input: true },
  allowed_session_patterns: ['agent-*'],
  log_level: 'silent',
});

let server: TmuxTestServer;
let paneWatch: PaneWatcher;
let root: string;
let deps: BrokerDeps;
let broker: LiveTestBroker | undefined;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'tmcp-drift-'));
  broker = await startLiveTestBroker({ config: CONFIG, stateDir: join(root, 'state'), graceMs: 100 });
  ({ server, paneWatch, deps } = broker);
});

afterAll(async () => {
  await broker?.close();
  if (root) rmSync(root, { recursive: true, force: true });
});

const gw = () => createCallerFactory(gatewayRouter)(createContextInner({ role: 'gateway', deps, actor: 'gateway:drift-test' }));

describe('one status for every read', () => {
  it('terminal_status, terminal_status_bound and terminal_input_context agree on a quiet pane while a watcher is attached', async () => {
    // A non-shell foreground that printed once: RUNNING only while its output is recent.
    const s = await server.newSession('agent-quiet', 'echo quiet-ready; exec sleep 3600', { width: 80, height: 20 });
    await gw().bindings.bind({ binding: 'quiet', session: 'agent-quiet' });
    await vi.waitFor(
      async () => expect((await gw().sessions.status({ session: 'agent-quiet' })).idle_seconds).toBeGreaterThan(RECENT_OUTPUT_SECONDS + 1),
      { timeout: 60_000, interval: 250 },
    );

    // Our own output watcher attaches: tmux bumps the session's activity, not the window's.
    const watching = paneWatch.watch(s.sessionId, { onOutput: () => undefined, onEnd: () => undefined });
    try {
      await watching.ready;
      const named = await gw().sessions.status({ session: 'agent-quiet' });
      const bound = await gw().bindings.status({ binding: 'quiet' });
      const context = await gw().input.context({ session: 'agent-quiet' });
      const boundContext = await gw().input.context({ binding: 'quiet' });

      expect(named.status).not.toBe('RUNNING');
      expect(bound.last_activity).toBe(named.last_activity);
      expect(bound.status).toBe(named.status);
      expect(bound.reason).toBe(named.reason);
      expect(bound.idle_seconds).toBeGreaterThanOrEqual(named.idle_seconds);
      expect(context.status).toBe(named.status);
      expect(context.status_reason).toBe(named.reason);
      expect(boundContext.status).toBe(named.status);
    } finally {
      watching.unsubscribe();
    }
    await server.tmux(['kill-session', '-t', s.sessionId]);
  }, 120_000);
});

describe('terminal_list_sessions last_activity', () => {
  it('advances while a pane prints every second', async () => {
    const s = await server.newSession('agent-ticker', 'while :; do echo tick; sleep 1; done', { width: 80, height: 20 });
    const lastActivity = async () => (await gw().sessions.list({})).sessions.find((x) => x.name === 'agent-ticker')!.last_activity;
    const first = await lastActivity();
    await vi.waitFor(async () => expect(Date.parse(await lastActivity())).toBeGreaterThan(Date.parse(first)), { timeout: 60_000, interval: 250 });
    // It is the pane's output time, the same clock terminal_status reports.
    const listed = Date.parse(await lastActivity());
    const status = Date.parse((await gw().sessions.status({ session: 'agent-ticker' })).last_activity);
    expect(Math.abs(status - listed)).toBeLessThanOrEqual(5_000);
    await server.tmux(['kill-session', '-t', s.sessionId]);
  }, 120_000);
});
