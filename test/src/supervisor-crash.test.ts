// A broker SIGKILLed between supervisor2_execute_send's approved → sent swap and the keystrokes: nothing reaches the pane, the restarted broker closes the action as failed (delivery unknown) instead of re-sending it, a repeated execute_send types nothing, and the watch can be claimed again.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createBrokerClient } from '@terminal-mcp/broker-client';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startBrokerProcess, type BrokerProcess } from './helpers/broker-process.js';
import { startTmuxServer, type TmuxTestServer } from './helpers/tmux-server.js';

const CONFIG = {
  permissions: { terminal_read: true, terminal_input: true },
  allowed_session_patterns: ['agent-*'],
  input_policy: { allowed_session_patterns: ['agent-*'] },
  // enabled: false: run_once drives the watch, so no pane-output watcher clients are
  // attached when the broker is killed. With them, under a loaded machine, the private tmux
  // server was seen gone right after the SIGKILL (reported; not this test's subject).
  supervisor: { enabled: false, v2_enabled: true, idle_threshold_seconds: 30 },
};

let tmux: TmuxTestServer;
let broker: BrokerProcess;
let root: string;

beforeAll(async () => {
  tmux = await startTmuxServer();
  root = mkdtempSync(join(tmpdir(), 'tmcp-supcrash-'));
  // The session exists before the broker starts: the server never has only the broker's session.
  await tmux.newSession('agent-crash', `bash --norc --noprofile -c 'read -p "Continue? [y/N] " a; echo "$a" > ${join(root, 'answered')}; sleep 600'`, { width: 100, height: 20 });
  // Test-only fault injection (effects/fault-injection.ts): SIGKILL right after the input audit write.
  broker = await startBrokerProcess({ tmuxSocket: tmux.socketName, config: CONFIG, env: { TERMINAL_MCP_TEST_CRASH_AFTER_AUDIT: '1' } });
});
afterAll(async () => {
  await broker?.stop();
  await tmux?.kill();
  if (root) rmSync(root, { recursive: true, force: true });
});

const client = () => createBrokerClient({ role: 'gateway', socketPath: join(broker.socketDir, 'gateway.sock') });

describe('supervisor2_execute_send across a broker crash', () => {
  it('sends nothing twice and leaves the action recoverable', async () => {
    const marker = join(root, 'answered');
    const c = client();
    await c.supervisor.watch.mutate({ session: 'agent-crash' });
    await c.supervisor2.setPolicy.mutate({ session: 'agent-crash', mode: 'approved_auto_continue', approved_template: 'y' });
    let eventId = 0;
    await vi.waitFor(
      async () => {
        await c.supervisor.runOnce.mutate({});
        const { events } = await c.supervisor2.listActionableEvents.query({});
        expect(events.length).toBeGreaterThan(0);
        eventId = events[0]!.id;
      },
      { timeout: 60_000, interval: 200 },
    );
    const action = await c.supervisor2.claimEvent.mutate({ event_id: eventId });
    expect(await c.supervisor2.submitDecision.mutate({ action_id: action.id, prompt: 'y' })).toMatchObject({ state: 'approved', approved_by: 'policy:approved_template' });

    await expect(c.supervisor2.executeSend.mutate({ action_id: action.id })).rejects.toBeDefined();
    expect(await broker.exited()).toMatchObject({ signal: 'SIGKILL' });

    broker = await broker.restart({ env: { TERMINAL_MCP_TEST_CRASH_AFTER_AUDIT: undefined } });
    const again = client();
    const { actions } = await again.supervisor2.listActions.query({ watch_key: 'session:agent-crash' });
    expect(actions[0]).toMatchObject({ id: action.id, state: 'failed', send_result: null });
    expect(actions[0]?.blocked_reason).toContain('delivery unknown');
    expect(await again.supervisor2.executeSend.mutate({ action_id: action.id })).toMatchObject({ sent: false });
    await new Promise((r) => setTimeout(r, 500));
    expect(existsSync(marker)).toBe(false);
    const pane = await tmux.tmux(['capture-pane', '-p', '-t', 'agent-crash']);
    expect(pane).toContain('Continue? [y/N]');
    // Recoverable: the watch has no open action, so its event can be claimed again.
    expect((await again.supervisor2.listActionableEvents.query({})).events.map((e) => e.id)).toContain(eventId);
    expect(await again.supervisor2.claimEvent.mutate({ event_id: eventId })).toMatchObject({ state: 'claimed' });
  });
});
