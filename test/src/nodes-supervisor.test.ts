// Guards supervisor watches on node sessions (nodes/node-supervisor.ts) over a real sshd and a real remote tmux: a watch on node:session follows the node's pane (looked at on a tick, not by this host's pane watcher) and records DONE for the node's session, named with its node; the node's read patterns refuse a watch the top-level ones would allow; a local session of the same name is not the node's; the supervisor's reads are audited as node:session; while sshd is gone the watch stays (NODE_UNAVAILABLE is not "target missing") and it sees the pane again once the node is back; a decided send reaches the node's pane through the node's input rules.
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { createBrokerClient, type BrokerClient } from '@terminal-mcp/broker-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrokerProcess } from './helpers/broker-process.js';
import { failureOf } from './helpers/broker-failure.js';
import { startNodeFixture, type NodeFixture } from './helpers/node-fixture.js';
import { sshdUnavailable, type TestSshd } from './helpers/sshd.js';
import type { TmuxTestServer } from './helpers/tmux-server.js';
import { waitFor } from './helpers/wait-for.js';

const unavailable = sshdUnavailable();
if (unavailable !== undefined) console.log(`skipping the node supervisor tests: ${unavailable}`);

let local: TmuxTestServer;
let remote: TmuxTestServer;
let sshd: TestSshd;
let broker: BrokerProcess;
let fixture: NodeFixture | undefined;
let client: BrokerClient<'gateway'>;

const eventsOf = async (target: string) => (await client.supervisor.listEvents.query({ limit: 200 })).events.filter((e) => e.target === target);

describe.skipIf(unavailable !== undefined)('supervisor watches on node sessions', () => {
  beforeAll(async () => {
    fixture = await startNodeFixture({
      config: {
        allowed_session_patterns: ['agent-*', 'private-*'],
        permissions: { terminal_input: true },
        input_policy: { allowed_session_patterns: ['agent-*'] },
        supervisor: { enabled: true, v2_enabled: true },
      },
      node: { allowed_session_patterns: ['agent-*'] },
      sessions: async (here, there) => {
        // The same name on this host: a watch on the node's session must never read this one.
        await here.newSession('agent-work', `bash --norc --noprofile -c 'echo local-only; echo TERMINAL_MCP_DONE; exec sleep 3600'`);
        await there.newSession('agent-work', 'bash --norc --noprofile');
        await there.newSession('agent-ask', `bash --norc --noprofile -c 'read -p "Continue? [y/N] " a; echo "answered:$a"; exec sleep 3600'`);
        await there.newSession('private-notes', `bash --norc --noprofile -c 'echo private; exec sleep 3600'`);
      },
    });
    ({ local, remote, sshd, broker } = fixture);
    client = createBrokerClient({ role: 'gateway', socketPath: join(broker.socketDir, 'gateway.sock') });
  });

  afterAll(async () => {
    await fixture?.stop();
  });

  it("refuses a watch the node's read patterns refuse, and an unknown node, as a read would be", async () => {
    // private-* is readable on this host, not on the node.
    expect((await failureOf(client.supervisor.watch.mutate({ session: 'gpu:private-notes' }))).code).toBe('SESSION_NOT_ALLOWED');
    expect((await failureOf(client.supervisor.watch.mutate({ session: 'cpu:agent-work' }))).code).toBe('SESSION_NOT_FOUND');
    expect((await client.supervisor.listWatches.query({})).watches).toEqual([]);
  });

  it("records DONE for the node's session, named with its node, from the node's pane only", async () => {
    const watch = await client.supervisor.watch.mutate({ session: 'gpu:agent-work' });
    expect(watch).toMatchObject({ kind: 'session', target: 'gpu:agent-work', enabled: true });
    // This host's session of the same name shows the marker already; the node's does not
    // until it prints it after its own output.
    await remote.tmux(['send-keys', '-t', '=agent-work:', '-l', 'echo node-side-output; printf "%s\\n" TERMINAL_MCP_DONE']);
    await remote.tmux(['send-keys', '-t', '=agent-work:', 'Enter']);
    const done = await waitFor('a DONE event for gpu:agent-work', async () => (await eventsOf('gpu:agent-work')).find((e) => e.state === 'DONE'));
    expect(done.watch_key).toBe('session:gpu:agent-work');
    expect(done.output_preview).toContain('node-side-output');
    expect(done.output_preview).not.toContain('local-only');
    expect((await client.supervisor.listEvents.query({ limit: 200 })).events.every((e) => e.target === 'gpu:agent-work')).toBe(true);
    // The supervisor's looks are one read record per watch and pane, named with the node.
    const db = new Database(join(broker.stateDir, 'audit.db'), { readonly: true });
    try {
      const rows = await waitFor('the supervisor in the read audit', () => {
        const r = db.prepare("SELECT session_name, session_id, error_code FROM read_audit WHERE actor = 'broker:supervisor'").all() as { session_name: string; session_id: string | null; error_code: string | null }[];
        return r.length > 0 ? r : undefined;
      });
      for (const row of rows) expect(row).toMatchObject({ session_name: 'gpu:agent-work', session_id: expect.stringMatching(/^gpu:\$\d+$/), error_code: null });
    } finally {
      db.close();
    }
  });

  it("sends an approved answer to the node's pane through the node's input rules", async () => {
    await client.supervisor.watch.mutate({ session: 'gpu:agent-ask' });
    await client.supervisor2.setPolicy.mutate({ session: 'gpu:agent-ask', mode: 'approved_auto_continue', approved_template: 'y' });
    const event = await waitFor('an actionable event on gpu:agent-ask', async () => {
      await client.supervisor.runOnce.mutate({});
      return (await client.supervisor2.listActionableEvents.query({})).events.find((e) => e.target === 'gpu:agent-ask');
    });
    const action = await client.supervisor2.claimEvent.mutate({ event_id: event.id });
    expect(await client.supervisor2.submitDecision.mutate({ action_id: action.id, prompt: 'y' })).toMatchObject({ state: 'approved' });
    expect(await client.supervisor2.executeSend.mutate({ action_id: action.id })).toMatchObject({ sent: true });
    await waitFor('the node pane to take the answer', async () => (await remote.tmux(['capture-pane', '-p', '-t', '=agent-ask:'])).includes('answered:y'));
    expect(await local.tmux(['list-sessions', '-F', '#{session_name}'])).not.toContain('agent-ask');
  });

  it('keeps the watch while sshd is gone and sees the pane again once the node is back', async () => {
    await sshd.kill();
    await waitFor('the node to be down', async () => (await failureOf(client.sessions.tail.query({ session: 'gpu:agent-work' })).catch(() => undefined))?.code === 'NODE_UNAVAILABLE');
    // A pass looks at every watch now: the node is down, the watch is not "missing".
    await client.supervisor.runOnce.mutate({});
    expect((await client.supervisor.listWatches.query({})).watches.find((w) => w.target === 'gpu:agent-work')).toMatchObject({ enabled: true });
    expect((await eventsOf('gpu:agent-work')).some((e) => e.event_type === 'watch_target_missing')).toBe(false);
    await sshd.start();
    await waitFor('the node to come back', async () => (await client.sessions.list.query({})).nodes?.find((n) => n.node === 'gpu')?.state === 'up');
    const before = (await eventsOf('gpu:agent-work')).length;
    await remote.tmux(['send-keys', '-t', '=agent-work:', '-l', 'clear; printf "%s\\n" "Error: failed"']);
    await remote.tmux(['send-keys', '-t', '=agent-work:', 'Enter']);
    const later = await waitFor('a new event after the node is back', async () => {
      const events = await eventsOf('gpu:agent-work');
      return events.length > before ? events : undefined;
    });
    expect(later.at(-1)?.target).toBe('gpu:agent-work');
  });
});
