// Guards registry rows for node sessions (registry/session-registry.ts createNodeRegistries) over a real sshd and a real remote tmux: a session killed on the node is listed DEAD as gpu:<name> (id gpu:$N) by terminal_list_sessions(include_dead) with its last redacted screen when the node's read patterns allow it, and without one when they do not; this host's session of the same name is untouched; while sshd is gone the node's sessions are never marked dead, and they are live again (same rows) once it is back; a restarted tmux server on the node makes its old sessions MISSING.
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { createBrokerClient, type BrokerClient } from '@terminal-mcp/broker-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrokerProcess } from './helpers/broker-process.js';
import { startNodeFixture, type NodeFixture } from './helpers/node-fixture.js';
import { sshdUnavailable, type TestSshd } from './helpers/sshd.js';
import { startTmuxServer, type TmuxTestServer } from './helpers/tmux-server.js';
import { waitFor } from './helpers/wait-for.js';

const unavailable = sshdUnavailable();
if (unavailable !== undefined) console.log(`skipping the node registry tests: ${unavailable}`);

const SECRET = 'ghp_abcdefghijklmnopqrstuvwxyz0123456789';

let local: TmuxTestServer;
let remote: TmuxTestServer;
let restarted: TmuxTestServer | undefined;
let sshd: TestSshd;
let broker: BrokerProcess;
let fixture: NodeFixture | undefined;
let client: BrokerClient<'gateway'>;
let registry: Database.Database;

interface Row {
  id: number;
  node: string | null;
  name: string;
  server_pid: number;
  session_id: string;
  status: string;
  last_seen: number;
  last_screen: string | null;
}
const rowsOf = (node: string | null, name: string) => registry.prepare('SELECT * FROM session_registry WHERE node IS ? AND name = ? ORDER BY id').all(node, name) as Row[];
const dead = async () => (await client.sessions.list.query({ include_dead: true })).dead_sessions ?? [];

describe.skipIf(unavailable !== undefined)('registry rows for node sessions', () => {
  beforeAll(async () => {
    fixture = await startNodeFixture({
      // Screens are recorded every 5 s (the smallest interval the config takes).
      config: { allowed_session_patterns: ['agent-*', 'private-*'], session_lifecycle: { reconcile_interval_seconds: 5 } },
      node: { allowed_session_patterns: ['agent-*'] },
      sessions: async (here, there) => {
        // This host's session of the same name: it must never be touched by the node's passes.
        await here.newSession('agent-work', `bash --norc --noprofile -c 'echo local-only; exec sleep 3600'`);
        await there.newSession('agent-work', `bash --norc --noprofile -c 'echo node-work; exec sleep 3600'`);
        await there.newSession('agent-gone', `bash --norc --noprofile -c 'echo GONE-MARK token=${SECRET}; exec sleep 3600'`);
        await there.newSession('agent-keep', `bash --norc --noprofile -c 'echo keep; exec sleep 3600'`);
        // Readable on this host by the top-level patterns, not on the node by the node's.
        await there.newSession('private-notes', `bash --norc --noprofile -c 'echo PRIVATE-MARK; exec sleep 3600'`);
      },
    });
    ({ local, remote, sshd, broker } = fixture);
    client = createBrokerClient({ role: 'gateway', socketPath: join(broker.socketDir, 'gateway.sock') });
    registry = new Database(join(broker.stateDir, 'registry.db'), { readonly: true, fileMustExist: true });
  });

  afterAll(async () => {
    registry?.close();
    await fixture?.stop();
    await restarted?.kill();
  });

  it("lists a session killed on the node as DEAD gpu:<name> with its last redacted screen, and none for one the node's patterns refuse", async () => {
    // The node's timer pass records the screens of the sessions its gate admits.
    await waitFor('the node pass to record agent-gone\'s screen', () => rowsOf('gpu', 'agent-gone')[0]?.last_screen?.includes('GONE-MARK'));
    expect(rowsOf('gpu', 'private-notes')).toEqual([expect.objectContaining({ status: 'ACTIVE', last_screen: null })]);
    const localBefore = rowsOf(null, 'agent-work');
    expect(localBefore).toEqual([expect.objectContaining({ status: 'ACTIVE' })]);

    await remote.tmux(['kill-session', '-t', '=agent-gone']);
    await remote.tmux(['kill-session', '-t', '=private-notes']);
    const gone = await waitFor('gpu:agent-gone and gpu:private-notes to be listed DEAD', async () => {
      const d = await dead();
      return d.some((x) => x.name === 'gpu:agent-gone') && d.some((x) => x.name === 'gpu:private-notes') ? d : undefined;
    });
    const agent = gone.find((x) => x.name === 'gpu:agent-gone')!;
    expect(agent).toMatchObject({ node: 'gpu', status: 'KILLED', session_id: expect.stringMatching(/^gpu:\$\d+$/) });
    expect(agent.last_screen).toContain('GONE-MARK');
    expect(agent.last_screen).not.toContain(SECRET);
    // Refused by the node's patterns: no screen was kept, and none is shown.
    expect(gone.find((x) => x.name === 'gpu:private-notes')).toMatchObject({ node: 'gpu', status: 'KILLED', last_screen: null });
    expect(rowsOf('gpu', 'private-notes')[0]?.last_screen).toBeNull();
    // Nothing of this host is dead, and its session of the same name is live and untouched.
    expect(gone.filter((x) => x.node === undefined)).toEqual([]);
    expect(rowsOf(null, 'agent-work')).toEqual([expect.objectContaining({ id: localBefore[0]!.id, status: 'ACTIVE' })]);
    expect(rowsOf('gpu', 'agent-work')).toEqual([expect.objectContaining({ status: 'ACTIVE' })]);
    const live = (await client.sessions.list.query({})).sessions.map((s) => s.name);
    expect(live).toEqual(expect.arrayContaining(['agent-work', 'gpu:agent-work', 'gpu:agent-keep']));
    // The name filter sees the node's name.
    expect((await client.sessions.list.query({ include_dead: true, name_filter: 'gpu:agent-g' })).dead_sessions?.map((d) => d.name)).toEqual(['gpu:agent-gone']);
  });

  it('never marks a node\'s sessions dead while sshd is gone, and has them live again (same rows) once it is back', async () => {
    const before = [...rowsOf('gpu', 'agent-work'), ...rowsOf('gpu', 'agent-keep')];
    expect(before.map((r) => r.status)).toEqual(['ACTIVE', 'ACTIVE']);
    await sshd.kill();
    const downAt = Date.now();
    await waitFor('the node to be down', async () => (await client.sessions.list.query({})).nodes?.find((n) => n.node === 'gpu')?.state === 'down');
    // A reconnect has failed (the moment a down node could be taken for a gone server) ...
    await waitFor('a refused reconnect', async () => (await client.nodes.health.query({ node: 'gpu' })).nodes[0]?.reason === 'connection refused');
    // ... and a whole timer interval has passed since the kill (this host's pass on the
    // same 5 s interval refreshed its row after it), so the node's timer pass ran meanwhile.
    await waitFor('a registry interval since sshd went', () => (rowsOf(null, 'agent-work')[0]?.last_seen ?? 0) >= downAt + 5_000);
    expect([...rowsOf('gpu', 'agent-work'), ...rowsOf('gpu', 'agent-keep')].map((r) => [r.id, r.status])).toEqual(before.map((r) => [r.id, 'ACTIVE']));
    expect((await dead()).filter((d) => d.name === 'gpu:agent-work' || d.name === 'gpu:agent-keep')).toEqual([]);

    const backAt = Date.now();
    await sshd.start();
    await waitFor('the node to come back', async () => (await client.sessions.list.query({})).nodes?.find((n) => n.node === 'gpu')?.state === 'up');
    // The pass on reconnect sees them on the same server: the same rows, seen again.
    await waitFor('the node rows seen again', () => (rowsOf('gpu', 'agent-keep')[0]?.last_seen ?? 0) >= backAt);
    expect([...rowsOf('gpu', 'agent-work'), ...rowsOf('gpu', 'agent-keep')].map((r) => [r.id, r.status])).toEqual(before.map((r) => [r.id, 'ACTIVE']));
  });

  it("makes a node's old sessions MISSING when its tmux server is killed and started again", async () => {
    const old = [...rowsOf('gpu', 'agent-work'), ...rowsOf('gpu', 'agent-keep')];
    await remote.kill();
    restarted = await startTmuxServer({ socketName: remote.socketName });
    const gone = await waitFor('the old node sessions to be listed MISSING', async () => {
      const d = await dead();
      const mine = d.filter((x) => old.some((r) => x.session_id === `gpu:${r.session_id}` && x.name === `gpu:${r.name}`));
      return mine.length === 2 && mine.every((x) => x.status === 'MISSING') ? mine : undefined;
    });
    expect(gone.map((x) => x.node)).toEqual(['gpu', 'gpu']);
    // A session is created only once the broker's control client is attached again (tmux
    // 3.3a can crash when a session is created while a control client is identifying).
    await waitFor('the node to be up on its new server', async () => (await client.sessions.list.query({})).nodes?.find((n) => n.node === 'gpu')?.state === 'up');
    await restarted.newSession('agent-work', `bash --norc --noprofile -c 'echo node-work-2; exec sleep 3600'`);
    // The new session of the same name is a new row of the new server; this host's is untouched.
    const rows = await waitFor('the new server\'s agent-work', () => {
      const r = rowsOf('gpu', 'agent-work');
      return r.some((x) => x.status === 'ACTIVE' && x.server_pid !== old[0]!.server_pid) ? r : undefined;
    });
    expect(rows).toHaveLength(2);
    expect(rowsOf(null, 'agent-work')).toEqual([expect.objectContaining({ status: 'ACTIVE' })]);
    expect(await local.tmux(['list-sessions', '-F', '#{session_name}'])).toContain('agent-work');
  });
});
