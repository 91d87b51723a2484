/**
 * The `hosts` section (issue 48 item 6): how far one broker goes. BENCH_HOSTS (100) nodes x
 * BENCH_HOSTS_SESSIONS (10) sessions, each node its own tmux server reached over a real sshd
 * on loopback (one ssh master and one control client per node, as with real hosts), plus
 * 10 sessions on this host: 1,010 sessions in all.
 *
 * - up: from the broker's spawn (and from its listening) until every node is `up` in a list;
 * - list: sessions.list of all sessions in one call, p50/p99 (BENCH_HOSTS_ITER, 30);
 * - tail: a 200-line tail of a node session (`h001:agent-0`), p50/p99;
 * - the broker's RSS, its ssh processes (how many, resident memory together), the loopback
 *   sshd's processes (the far end: on real hosts each host carries its own), and the
 *   broker's idle CPU over BENCH_HOSTS_IDLE_SECONDS (30) with every node connected;
 * - failures: calls that threw, and lists that did not hold every session or every node up.
 *
 * One sshd serves every node here, so its MaxStartups (how many unauthenticated
 * connections it takes at once) is raised to the node count: 100 real hosts each have
 * their own sshd, and the default (10:30:100) would drop most of a 100-connection start.
 * Calls go straight to gateway.sock (the broker's figure, without the MCP hop).
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createBrokerClient, startBrokerProcess, startSshd, startTmuxServer, type TmuxTestServer } from '@terminal-mcp/test';
import { cpuSeconds, rssMb } from './proc-stats.js';
import type { Teardown } from './teardown.js';
import { summarize, time, type Stats } from './stats.js';

export const BENCH_HOSTS = Number(process.env.BENCH_HOSTS ?? 100);
export const BENCH_HOSTS_SESSIONS = Number(process.env.BENCH_HOSTS_SESSIONS ?? 10);
const LOCAL_SESSIONS = 10;
const hostName = (i: number) => `h${String(i + 1).padStart(3, '0')}`;

export interface HostsBench {
  nodes: number;
  sessions: number;
  /** Broker spawn -> every node up; listening -> every node up. */
  upFromSpawnMs: number;
  upFromListeningMs: number;
  list: Stats;
  listBytes: number;
  tail: Stats;
  failures: string[];
  rssMb: number;
  sshProcesses: number;
  sshRssMb: number;
  sshdProcesses: number;
  sshdRssMb: number;
  idleCpuPercent: number;
  idleSeconds: number;
}

const SCREEN = `sh -c 'i=0; while [ $i -lt 300 ]; do echo "line $i of the bench session"; i=$((i+1)); done; exec sleep 3600'`;

/** Pids of live processes named `comm` whose command line passes `match`. */
function processes(comm: string, match: (argv: string[]) => boolean): number[] {
  const pids: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/comm`, 'utf8').trim() !== comm) continue;
      if (match(readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0'))) pids.push(Number(name));
    } catch {
      /* gone */
    }
  }
  return pids;
}

/** Every process below `root` (the sshd's connection processes and their sessions). */
function descendants(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(parent, [...(children.get(parent) ?? []), Number(name)]);
    } catch {
      /* gone */
    }
  }
  const out: number[] = [];
  for (let queue = [...(children.get(root) ?? [])]; queue.length > 0; ) {
    const next = queue.shift()!;
    out.push(next);
    queue = queue.concat(children.get(next) ?? []);
  }
  return out;
}

const safeRss = (pid: number) => {
  try {
    return rssMb(pid);
  } catch {
    return 0;
  }
};

export async function benchHosts(owned: Teardown, iterations: number, idleSeconds: number, failHere: () => void = () => undefined): Promise<HostsBench> {
  const stoppers: (() => Promise<void>)[] = [];
  const local = await startTmuxServer();
  stoppers.push(owned.add('the hosts bench local tmux server', () => local.kill()));
  const remotes: TmuxTestServer[] = [];
  try {
    const sshd = await startSshd({ maxStartups: BENCH_HOSTS + 10 });
    stoppers.push(owned.add('the hosts bench sshd', () => sshd.stop()));
    // One tmux call per server: its sessions chained with `;` (names are plain).
    const chain = (names: readonly string[], command: (i: number) => string) =>
      names.flatMap((n, i) => [...(i > 0 ? [';'] : []), 'new-session', '-d', '-s', n, '-x', '160', '-y', '50', command(i)]);
    await local.tmux(chain(Array.from({ length: LOCAL_SESSIONS }, (_, i) => `agent-local-${i}`), () => 'sleep 3600'));
    for (let n = 0; n < BENCH_HOSTS; n++) {
      const remote = await startTmuxServer();
      remotes.push(remote);
      stoppers.push(owned.add(`the tmux server of node ${hostName(n)}`, () => remote.kill()));
      await remote.tmux(chain(Array.from({ length: BENCH_HOSTS_SESSIONS }, (_, i) => `agent-${i}`), (i) => (n === 0 && i === 0 ? SCREEN : 'sleep 3600')));
    }
    const expected = LOCAL_SESSIONS + BENCH_HOSTS * BENCH_HOSTS_SESSIONS;
    const spawnedAt = Date.now();
    const broker = await startBrokerProcess({
      tmuxSocket: local.socketName,
      // Diagnosis: BENCH_HOSTS_LOG_LEVEL=info and BENCH_HOSTS_BROKER_LOG=<file> keep the
      // broker's log; BENCH_HOSTS_NODE_OPTIONS (e.g. --cpu-prof) reaches its node.
      ...(process.env.BENCH_HOSTS_NODE_OPTIONS ? { env: { NODE_OPTIONS: process.env.BENCH_HOSTS_NODE_OPTIONS } } : {}),
      config: {
        log_level: process.env.BENCH_HOSTS_LOG_LEVEL ?? 'warn',
        allowed_session_patterns: ['agent-*'],
        nodes: remotes.map((r, n) => ({ name: hostName(n), ssh: sshd.destination, tmux_socket: r.socketName, identity_file: sshd.clientKey, known_hosts: sshd.knownHosts })),
      },
    });
    const listeningAt = Date.now();
    stoppers.push(owned.add('the hosts bench broker', async () => {
      await broker.stop();
      if (process.env.BENCH_HOSTS_BROKER_LOG) writeFileSync(process.env.BENCH_HOSTS_BROKER_LOG, broker.stderr());
    }));
    const client = createBrokerClient({ role: 'gateway', socketPath: join(broker.socketDir, 'gateway.sock') });
    const failures: string[] = [];
    let upAt: number;
    for (;;) {
      let nodes: { node: string; state: string; reason?: string | undefined }[] = [];
      try {
        nodes = (await client.sessions.list.query({})).nodes ?? [];
      } catch (err) {
        failures.push(`list while coming up: ${err instanceof Error ? err.message : String(err)}`);
      }
      const notUp = nodes.filter((n) => n.state !== 'up');
      if (nodes.length === BENCH_HOSTS + 1 && notUp.length === 0) {
        upAt = Date.now();
        break;
      }
      if (Date.now() - spawnedAt > 300_000) throw new Error(`the bench hosts did not come up in 300 s: ${notUp.length} not up, e.g. ${notUp.slice(0, 5).map((n) => `${n.node} ${n.state} (${n.reason ?? ''})`).join(', ')}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    failHere();
    const list = async () => {
      const r = await client.sessions.list.query({});
      const down = (r.nodes ?? []).filter((n) => n.state !== 'up');
      if (r.sessions.length !== expected || down.length > 0) failures.push(`list: ${r.sessions.length} of ${expected} sessions, ${down.length} nodes not up`);
      return r;
    };
    const tail = async () => {
      const t = await client.sessions.tail.query({ session: `${hostName(0)}:agent-0`, lines: 200 });
      if (!t.text.includes('line 299 of the bench session')) failures.push('the node tail did not show the screen');
      return t;
    };
    const guarded = async <T>(what: string, samples: number[], f: () => Promise<T>) => {
      try {
        return await time(samples, f);
      } catch (err) {
        failures.push(`${what}: ${err instanceof Error ? err.message : String(err)}`);
        return undefined;
      }
    };
    for (let i = 0; i < 3; i++) {
      await guarded('warm-up list', [], list);
      await guarded('warm-up tail', [], tail);
    }
    const l: number[] = [];
    const t: number[] = [];
    let listBytes = 0;
    for (let i = 0; i < iterations; i++) {
      const r = await guarded('list', l, list);
      if (r !== undefined) listBytes = JSON.stringify(r).length;
      await guarded('tail', t, tail);
    }
    const pid = broker.pid;
    const before = cpuSeconds(pid);
    const idleFrom = Date.now();
    await new Promise((r) => setTimeout(r, idleSeconds * 1000));
    const idleCpuPercent = ((cpuSeconds(pid) - before) / ((Date.now() - idleFrom) / 1000)) * 100;
    // After the idle time too: a node that dropped meanwhile is a failure.
    await guarded('list after idle', [], list);
    const ssh = processes('ssh', (argv) => argv.some((a) => a.includes(broker.stateDir)));
    const sshdTree = sshd.pid === undefined ? [] : descendants(sshd.pid);
    return {
      nodes: BENCH_HOSTS,
      sessions: expected,
      upFromSpawnMs: upAt - spawnedAt,
      upFromListeningMs: upAt - listeningAt,
      list: summarize(l),
      listBytes,
      tail: summarize(t),
      failures,
      rssMb: rssMb(pid),
      sshProcesses: ssh.length,
      sshRssMb: ssh.reduce((sum, p) => sum + safeRss(p), 0),
      sshdProcesses: sshdTree.length,
      sshdRssMb: sshdTree.reduce((sum, p) => sum + safeRss(p), 0),
      idleCpuPercent,
      idleSeconds,
    };
  } finally {
    // Newest first: the broker (and its ssh links), then the sshd and the tmux servers.
    for (const stop of stoppers.reverse()) await stop();
  }
}
