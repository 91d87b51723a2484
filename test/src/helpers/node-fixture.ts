/**
 * One node over a real sshd, for the tests of node sessions: this host's tmux server, a
 * "remote" tmux server reached through a real sshd on a loopback port, and a broker process
 * with one node `gpu` on it (host key pinned in its own known_hosts, the test's client key),
 * started once the sessions `sessions(local, remote)` makes exist, and answering only once
 * the node is up. `stop()` ends them in reverse order.
 */
import { startBrokerProcess, type BrokerProcess } from './broker-process.js';
import { startSshd, type TestSshd } from './sshd.js';
import { startTmuxServer, type TmuxTestServer } from './tmux-server.js';
import { waitFor } from './wait-for.js';
import { createBrokerClient } from '@terminal-mcp/broker-client';
import { join } from 'node:path';

export interface NodeFixture {
  readonly local: TmuxTestServer;
  readonly remote: TmuxTestServer;
  readonly sshd: TestSshd;
  readonly broker: BrokerProcess;
  stop(): Promise<void>;
}

export const FIXTURE_NODE = 'gpu';

export async function startNodeFixture(opts: {
  /** The broker's config.yaml besides `nodes` and `log_level`. */
  config: Record<string, unknown>;
  /** The node's own settings besides its name, ssh destination, socket and keys. */
  node?: Record<string, unknown>;
  sessions?: (local: TmuxTestServer, remote: TmuxTestServer) => Promise<void>;
  /** Extra environment of the broker (test-only fault injection, say). */
  env?: Record<string, string>;
}): Promise<NodeFixture> {
  // Each part is ended again if a later step fails (a node that never comes up must not
  // leave its broker, sshd and tmux servers behind: afterAll has no fixture to stop then).
  const started: (() => Promise<void>)[] = [];
  const stopAll = async () => {
    const stops = started.splice(0).reverse();
    for (const stop of stops) await stop().catch(() => undefined);
  };
  try {
    const local = await startTmuxServer();
    started.push(() => local.kill());
    const remote = await startTmuxServer();
    started.push(() => remote.kill());
    await opts.sessions?.(local, remote);
    const sshd = await startSshd();
    started.push(() => sshd.stop());
    const broker = await startBrokerProcess({
      tmuxSocket: local.socketName,
      ...(opts.env ? { env: opts.env } : {}),
      config: {
        log_level: 'warn',
        ...opts.config,
        nodes: [{ name: FIXTURE_NODE, ssh: sshd.destination, tmux_socket: remote.socketName, identity_file: sshd.clientKey, known_hosts: sshd.knownHosts, ...opts.node }],
      },
    });
    started.push(() => broker.stop());
    const probe = createBrokerClient({ role: 'gateway', socketPath: join(broker.socketDir, 'gateway.sock') });
    await waitFor(`node ${FIXTURE_NODE} up`, async () => (await probe.sessions.list.query({})).nodes?.find((n) => n.node === FIXTURE_NODE)?.state === 'up');
    return { local, remote, sshd, broker, stop: stopAll };
  } catch (err) {
    await stopAll();
    throw err;
  }
}
