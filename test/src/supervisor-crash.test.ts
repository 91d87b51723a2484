// A broker SIGKILLed between supervisor2_execute_send's approved → sent swap and the keystrokes: nothing reaches the pane, the restarted broker closes the action as failed (delivery unknown) instead of re-sending it, a repeated execute_send types nothing, and the watch can be claimed again.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createBrokerClient } from '@terminal-mcp/broker-client';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startBrokerProcess, type BrokerProcess } from './helpers/broker-process.js';
import { startTmuxServer, type TmuxTestServer } from './helpers/tmux-server.js';

const CONFIG = {
  permissions: { terminal_read: true, terminal_input: true },
  allowed_session_patterns: ['agent-*'],
  input_policy: { allowed_session_patterns: ['agent-*'] },
  supervisor: { enabled: true, v2_enabled: true, poll_interval_seconds: 3600, idle_threshold_seconds: 30 },
};

let tmux: TmuxTestServer;
let broker: BrokerProcess;

beforeAll(async () => {
  tmux = await startTmuxServer();
  // Test-only fault injection (effects/fault-injection.ts): SIGKILL right after the input audit write.
  broker = await startBrokerProcess({ tmuxSocket: tmux.socketName, config: CONFIG, env: { TERMINAL_MCP_TEST_CRASH_AFTER_AUDIT: '1' } });
});
afterAll(async () => {
  await broker?.stop();
  await tmux?.kill();
});

const client = () => createBrokerClient({ role: 'gateway', socketPath: join(broker.socketDir, 'gateway.sock') });

describe('supervisor2_execute_send across a broker crash', () => {
  it('sends nothing twice and leaves the action recoverable', async () => {
    const marker = join(broker.stateDir, '..', 'answered');
    await tmux.newSession('agent-crash', `bash --norc --noprofile -c 'read -p "Continue? [y/N] " a; echo "$a" > ${marker}; sleep 600'`, { width: 100, height: 20 });
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
      { timeout: 20_000, interval: 200 },
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
