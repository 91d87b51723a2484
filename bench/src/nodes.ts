/**
 * The `nodes` section: many hosts over OpenSSH (issue 28), against a real sshd on loopback.
 *
 * - remote tail: the broker's sessions.tail of `n01:agent-remote` (200 lines) over the
 *   node's control client (one ssh connection, kept) vs the same tail of an identical
 *   local session, and vs the naive remote read: one `ssh <host> tmux capture-pane` spawned
 *   per read (a fresh connection each time, as a script without a ControlMaster would).
 * - list: sessions.list with 20 nodes x 10 sessions (plus this host), p50.
 * - send: input.sendText of one line (no Enter) into `cat` on node n01 and on this host,
 *   through the control client, vs the same send of a line with a tab, which cannot travel
 *   on a control-mode line and is delivered the spawned way (on a node, one ssh channel;
 *   here, one tmux process). Both include the input path's gates, process-tree reads and
 *   the audit row written before the send.
 * - run: input.run of `true` in a bash at its prompt on n01 and on this host (terminal_run:
 *   on the node, its FIFO pair is made by a helper on one ssh channel per run).
 * - the broker's RSS and idle CPU with the 20 nodes connected (BENCH_NODES_IDLE_SECONDS, 30).
 * Calls go straight to gateway.sock (the broker's figure, without the MCP hop).
 */
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createBrokerClient, startBrokerProcess, startSshd, startTmuxServer, type TmuxTestServer } from '@terminal-mcp/test';
import { cpuSeconds, rssMb } from './proc-stats.js';
import type { Teardown } from './teardown.js';
import { summarize, time, type Stats } from './stats.js';

export const BENCH_NODES = 20;
export const BENCH_NODE_SESSIONS = 10;
const nodeName = (i: number) => `n${String(i + 1).padStart(2, '0')}`;

export interface NodesBench {
  localTail: Stats;
  remoteTail: Stats;
  sshSpawnTail: Stats;
  list: Stats;
  listedSessions: number;
  sendLocal: Stats;
  sendLocalSpawned: Stats;
  sendNode: Stats;
  sendNodeSpawned: Stats;
  runLocal: Stats;
  runNode: Stats;
  rssMb: number;
  /** The broker's ssh processes (masters and control clients; their ControlPath is under
   * its state dir): how many, and their resident memory together. */
  sshProcesses: number;
  sshRssMb: number;
  idleCpuPercent: number;
  idleSeconds: number;
}

/** 300 numbered lines, then wait: the same screen on both sides. */
const SHELL = "env PS1='$ ' HISTFILE=/dev/null bash --norc --noprofile -i";
const SCREEN = `sh -c 'i=0; while [ $i -lt 300 ]; do echo "line $i of the bench session"; i=$((i+1)); done; exec sleep 3600'`;

/** Pids of live ssh processes whose command line names `stateDir`. */
function sshProcessesOf(stateDir: string): number[] {
  const pids: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const argv = readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0');
      if (argv[0] === 'ssh' && argv.some((a) => a.includes(stateDir))) pids.push(Number(name));
    } catch {
      /* gone */
    }
  }
  return pids;
}

/** `owned`: the run's teardown. Every part is registered there the moment it starts (the
 * sshd, each tmux server, the broker), so a section that fails half-way, or an interrupt,
 * stops exactly what was started. `failHere` throws once everything is up (the bench's
 * own cleanup test). */
export async function benchNodes(owned: Teardown, iterations: number, idleSeconds: number, failHere: () => void = () => undefined): Promise<NodesBench> {
  const stoppers: (() => Promise<void>)[] = [];
  const local = await startTmuxServer();
  stoppers.push(owned.add('the nodes bench local tmux server', () => local.kill()));
  const remotes: TmuxTestServer[] = [];
  let broker: Awaited<ReturnType<typeof startBrokerProcess>> | undefined;
  try {
    const sshd = await startSshd();
    stoppers.push(owned.add('the nodes bench sshd', () => sshd.stop()));
    await local.newSession('agent-local', SCREEN, { width: 160, height: 50 });
    await local.newSession('agent-sink', 'cat > /dev/null');
    await local.newSession('agent-shell', SHELL, { width: 160, height: 50 });
    for (let n = 0; n < BENCH_NODES; n++) {
      const remote = await startTmuxServer();
      remotes.push(remote);
      stoppers.push(owned.add(`the tmux server of node ${nodeName(n)}`, () => remote.kill()));
      for (let s = 0; s < BENCH_NODE_SESSIONS; s++) await remote.newSession(n === 0 && s === 0 ? 'agent-remote' : `agent-${s}`, n === 0 && s === 0 ? SCREEN : 'sleep 3600', { width: 160, height: 50 });
      if (n === 0) await remote.newSession('agent-sink', 'cat > /dev/null');
      if (n === 0) await remote.newSession('agent-shell', SHELL, { width: 160, height: 50 });
    }
    broker = await startBrokerProcess({
      tmuxSocket: local.socketName,
      config: {
        log_level: 'warn',
        allowed_session_patterns: ['agent-*'],
        permissions: { terminal_input: true },
        input_policy: { allowed_session_patterns: ['agent-*'] },
        nodes: remotes.map((r, n) => ({ name: nodeName(n), ssh: sshd.destination, tmux_socket: r.socketName, identity_file: sshd.clientKey, known_hosts: sshd.knownHosts })),
      },
    });
    const running = broker;
    stoppers.push(owned.add('the nodes bench broker', () => running.stop()));
    const client = createBrokerClient({ role: 'gateway', socketPath: join(broker.socketDir, 'gateway.sock') });
    // Up to 5 minutes: twenty ssh connections on a busy 2-core machine.
    for (let started = Date.now(); ; ) {
      const nodes = (await client.sessions.list.query({})).nodes ?? [];
      const notUp = nodes.filter((n) => n.state !== 'up');
      if (nodes.length === BENCH_NODES + 1 && notUp.length === 0) break;
      if (Date.now() - started > 300_000) throw new Error(`the bench nodes did not come up: ${notUp.map((n) => `${n.node} ${n.state} (${n.reason ?? ''})`).join(', ')}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    failHere();
    const port = sshd.destination.slice(sshd.destination.lastIndexOf(':') + 1);
    const userHost = sshd.destination.slice(0, sshd.destination.lastIndexOf(':'));
    const sshArgv = ['-T', '-p', port, '-i', sshd.clientKey, '-o', 'IdentitiesOnly=yes', '-o', 'BatchMode=yes', '-o', `UserKnownHostsFile=${sshd.knownHosts}`, '-o', 'StrictHostKeyChecking=yes', '-o', 'ControlMaster=no', '-o', 'ControlPath=none', userHost, '--', 'tmux', '-L', remotes[0]!.socketName, 'capture-pane', '-p', '-J', '-t', '=agent-remote:', '-S', '-200'];
    const run = promisify(execFile);
    const localTail = () => client.sessions.tail.query({ session: 'agent-local', lines: 200 });
    const remoteTail = () => client.sessions.tail.query({ session: `${nodeName(0)}:agent-remote`, lines: 200 });
    const sshTail = () => run('ssh', sshArgv);
    const send = (session: string, text: string) => async () => {
      const r = await client.input.sendText.mutate({ session, text });
      if (r.result !== 'SENT') throw new Error(`the bench send to ${session} was not sent: ${JSON.stringify(r)}`);
    };
    const sends = [
      send('agent-sink', 'bench line'),
      send('agent-sink', 'bench\tline'),
      send(`${nodeName(0)}:agent-sink`, 'bench line'),
      send(`${nodeName(0)}:agent-sink`, 'bench\tline'),
    ] as const;
    const runIn = (session: string) => async () => {
      const r = await client.input.run.mutate({ session, command: 'true' });
      if (r.state !== 'DONE' || r.exit_status !== 0) throw new Error(`the bench run in ${session} did not end: ${JSON.stringify(r)}`);
    };
    const runs = [runIn('agent-shell'), runIn(`${nodeName(0)}:agent-shell`)] as const;
    for (let i = 0; i < 5; i++) {
      for (const r of runs) await r();
      await localTail();
      await remoteTail();
      await sshTail();
      for (const s of sends) await s();
    }
    const sent: [number[], number[], number[], number[]] = [[], [], [], []];
    const ran: [number[], number[]] = [[], []];
    const a: number[] = [];
    const b: number[] = [];
    const c: number[] = [];
    const l: number[] = [];
    let listed = 0;
    for (let i = 0; i < iterations; i++) {
      await time(a, localTail);
      const t = await time(b, remoteTail);
      if (!t.text.includes('line 299 of the bench session')) throw new Error('the remote tail did not show the screen');
      await time(c, sshTail);
      listed = (await time(l, () => client.sessions.list.query({}))).sessions.length;
      for (let k = 0; k < sends.length; k++) await time(sent[k]!, sends[k]!);
      await time(ran[0], runs[0]);
      await time(ran[1], runs[1]);
    }
    const pid = broker.pid;
    const before = cpuSeconds(pid);
    const started = Date.now();
    await new Promise((r) => setTimeout(r, idleSeconds * 1000));
    const idleCpuPercent = ((cpuSeconds(pid) - before) / ((Date.now() - started) / 1000)) * 100;
    const ssh = sshProcessesOf(broker.stateDir);
    return {
      localTail: summarize(a),
      remoteTail: summarize(b),
      sshSpawnTail: summarize(c),
      list: summarize(l),
      listedSessions: listed,
      sendLocal: summarize(sent[0]),
      sendLocalSpawned: summarize(sent[1]),
      sendNode: summarize(sent[2]),
      sendNodeSpawned: summarize(sent[3]),
      runLocal: summarize(ran[0]),
      runNode: summarize(ran[1]),
      rssMb: rssMb(pid),
      sshProcesses: ssh.length,
      sshRssMb: ssh.reduce((sum, p) => sum + rssMb(p), 0),
      idleCpuPercent,
      idleSeconds,
    };
  } finally {
    // Newest first: the broker (and its ssh links), then the sshd and the tmux servers.
    for (const stop of stoppers.reverse()) await stop();
  }
}
