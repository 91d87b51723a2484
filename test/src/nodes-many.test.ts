// Guards many hosts at the scale issue 28 names: 20 nodes x 10 sessions listed in one call
// through a real sshd (each node its own remote tmux server, reached over ssh), every
// session named node:session with its node's server in its id, a node whose tmux server
// was killed shown as down while the other nineteen stay listed, a node whose tmux stopped
// answering listed as slow with its last listing without holding up the rest, and project_check
// counting the nodes and naming the dead one as a blocker of the project that uses it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createBrokerClient, type BrokerClient } from '@terminal-mcp/broker-client';
import { compactSessionList, renderSessionList } from '@terminal-mcp/mcp-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBrokerProcess, type BrokerProcess } from './helpers/broker-process.js';
import { sshdUnavailable, startSshd, type TestSshd } from './helpers/sshd.js';
import { startTmuxServer, type TmuxTestServer } from './helpers/tmux-server.js';
import { waitFor } from './helpers/wait-for.js';

const NODES = 20;
const SESSIONS = 10;
const nodeName = (i: number) => `n${String(i + 1).padStart(2, '0')}`;

const unavailable = sshdUnavailable();
if (unavailable !== undefined) console.log(`skipping the many-nodes test: ${unavailable}`);

let local: TmuxTestServer;
const remotes: TmuxTestServer[] = [];
let sshd: TestSshd;
let broker: BrokerProcess;
let client: BrokerClient<'gateway'>;
/** The project's repository: a plain directory (project_check's git part is not what this file tests). */
const repo = mkdtempSync(join(tmpdir(), 'tmcp-fleet-'));

describe.skipIf(unavailable !== undefined)(`${NODES} nodes x ${SESSIONS} sessions over a real sshd`, () => {
  beforeAll(async () => {
    local = await startTmuxServer();
    await local.newSession('agent-here', 'sleep 3600');
    for (let n = 0; n < NODES; n++) {
      const remote = await startTmuxServer();
      remotes.push(remote);
      // Each session prints its own node and index, so a read shows it came from the right server.
      for (let s = 0; s < SESSIONS; s++) await remote.newSession(`agent-${s}`, `sh -c 'echo ${nodeName(n)}-session-${s}; exec sleep 3600'`);
    }
    sshd = await startSshd();
    broker = await startBrokerProcess({
      tmuxSocket: local.socketName,
      config: {
        allowed_session_patterns: ['agent-*'],
        log_level: 'warn',
        observer: { source_roots: [{ name: 'fleet', path: repo }] },
        project_profiles: [{ name: 'fleet', repo: 'fleet', sessions: ['n01:agent-1', 'n05:agent-2', 'agent-here'] }],
        nodes: remotes.map((r, n) => ({ name: nodeName(n), ssh: sshd.destination, tmux_socket: r.socketName, identity_file: sshd.clientKey, known_hosts: sshd.knownHosts })),
      },
    });
    client = createBrokerClient({ role: 'gateway', socketPath: join(broker.socketDir, 'gateway.sock') });
    await waitFor('every node up', async () => {
      const nodes = (await client.sessions.list.query({})).nodes ?? [];
      return nodes.filter((n) => n.state === 'up').length === NODES + 1 || undefined;
    });
  });

  afterAll(async () => {
    await broker?.stop();
    await sshd?.stop();
    for (const r of remotes) await r.kill();
    await local?.kill();
    rmSync(repo, { recursive: true, force: true });
  });

  it('lists every session of every node and this host in one call, each under its node', async () => {
    const list = await client.sessions.list.query({});
    const names = new Set(list.sessions.map((s) => s.name));
    expect(names.has('agent-here')).toBe(true);
    for (let n = 0; n < NODES; n++) for (let s = 0; s < SESSIONS; s++) expect(names.has(`${nodeName(n)}:agent-${s}`)).toBe(true);
    expect(list.sessions.filter((s) => /^n\d\d:/.test(s.name))).toHaveLength(NODES * SESSIONS);
    for (const s of list.sessions.filter((row) => row.name.startsWith('n'))) expect(s.session_id).toMatch(new RegExp(`^${s.name.split(':')[0]}:\\$\\d+$`));
    expect(list.nodes?.map((n) => n.node)).toEqual(['local', ...remotes.map((_, n) => nodeName(n))]);
  });

  it('reads each node from its own server: a session of node 7 shows node 7\'s text', async () => {
    for (const n of [0, 6, NODES - 1]) {
      const tail = await waitFor(`tail of ${nodeName(n)}:agent-3`, async () => {
        const t = await client.sessions.tail.query({ session: `${nodeName(n)}:agent-3`, lines: 5 });
        return t.text.includes(`${nodeName(n)}-session-3`) ? t : undefined;
      });
      expect(tail.session).toBe(`${nodeName(n)}:agent-3`);
    }
  });

  it('project_check counts the nodes and reads a profile\'s node:session through its node', async () => {
    const check = await client.projects.check.query({ project: 'fleet' });
    expect(check.nodes).toEqual({ total: NODES, execution_ok: NODES, not_ok: [] });
    expect(check.sessions.map((x) => [x.session, x.exists, x.read_allowed, x.current_command])).toEqual([
      ['n01:agent-1', true, true, 'sleep'],
      ['n05:agent-2', true, true, 'sleep'],
      ['agent-here', true, true, 'sleep'],
    ]);
    expect(check.blockers.filter((b) => b.startsWith('node '))).toEqual([]);
  });

  it('lists a node whose tmux stopped answering as slow, with its last listing, and every other node as usual', async () => {
    const stalled = 8;
    const pid = Number((await remotes[stalled]!.tmux(['display-message', '-p', '#{pid}'])).trim());
    // A listing for the slow answer to fall back on (earlier tests listed too; this makes it certain).
    await client.sessions.list.query({});
    // Stopped, not killed: the ssh link and the control client stay up, tmux just never answers.
    process.kill(pid, 'SIGSTOP');
    try {
      const list = await client.sessions.list.query({});
      const node = list.nodes?.find((n) => n.node === nodeName(stalled));
      expect(node).toMatchObject({ state: 'slow', reason: expect.stringMatching(/^no answer within 5 s; its rows as listed at \d{4}-\d\d-\d\dT/) });
      expect(list.sessions.filter((s) => s.name.startsWith(`${nodeName(stalled)}:`)).map((s) => s.name).sort()).toEqual(
        Array.from({ length: SESSIONS }, (_, s) => `${nodeName(stalled)}:agent-${s}`).sort(),
      );
      // Everyone else answered in the same call: this host and the other nineteen nodes.
      expect(list.nodes?.filter((n) => n.state === 'up')).toHaveLength(NODES);
      expect(renderSessionList(compactSessionList(list))).toContain(`${nodeName(stalled)} SLOW (no answer within 5 s; its rows as listed at `);
    } finally {
      process.kill(pid, 'SIGCONT');
    }
    await waitFor('the stalled node to answer again', async () => ((await client.sessions.list.query({})).nodes?.find((n) => n.node === nodeName(stalled))?.state === 'up' ? true : undefined));
  });

  it('shows a node whose tmux server was killed as down, and still lists the other nodes', async () => {
    const victim = 4;
    await remotes[victim]!.kill();
    const list = await waitFor('the node to be down', async () => {
      const l = await client.sessions.list.query({});
      return l.nodes?.find((n) => n.node === nodeName(victim))?.state === 'down' ? l : undefined;
    });
    expect(list.sessions.some((s) => s.name.startsWith(`${nodeName(victim)}:`))).toBe(false);
    expect(list.sessions.filter((s) => /^n\d\d:/.test(s.name))).toHaveLength((NODES - 1) * SESSIONS);
    expect(list.nodes?.filter((n) => n.state === 'up')).toHaveLength(NODES);

    const check = await client.projects.check.query({ project: 'fleet' });
    expect(check.nodes?.execution_ok).toBe(NODES - 1);
    expect(check.nodes?.not_ok.map((n) => n.node)).toEqual([nodeName(victim)]);
    expect(check.sessions.find((x) => x.session === 'n05:agent-2')).toMatchObject({ exists: false, status: null, error_code: 'NODE_UNAVAILABLE' });
    expect(check.blockers.filter((b) => b.startsWith('node '))).toEqual([expect.stringContaining(`node ${nodeName(victim)} holds this project's sessions`)]);
  });
});
