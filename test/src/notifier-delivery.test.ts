// The notifier process (services/notifier, notifier.sock) delivers what a real broker queues to real local HTTP receivers (JSON webhook, ntfy push), once each; notices raised while it is stopped wait and go out once when it returns; a send cut by its stop is recorded UNKNOWN and never repeated; it rides out a broker restart; and the broker process holds no TCP or UDP socket at any point (its /proc fds against the TCP/UDP tables) while the notifier holds the connection.
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { createBrokerClient, type BrokerClient } from '@terminal-mcp/broker-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBrokerProcess, type BrokerProcess } from './helpers/broker-process.js';
import { networkSocketsOf, watchNetworkSockets } from './helpers/network-sockets.js';
import { repoPath } from './helpers/repo.js';
import { startTmuxServer, type TmuxTestServer } from './helpers/tmux-server.js';
import { waitFor } from './helpers/wait-for.js';

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

let tmux: TmuxTestServer;
let broker: BrokerProcess;
let gateway: BrokerClient<'gateway'>;
let receiver: Server;
let base: string;
let brokerSockets: ReturnType<typeof watchNetworkSockets>;
const received: Received[] = [];
/** While true, the receiver keeps each request open until release() (a slow channel). */
let holding = false;
const held: ServerResponse[] = [];
const release = () => {
  holding = false;
  for (const res of held.splice(0)) res.end('ok');
};

/** A running notifier process and its stderr (JSON log lines). */
interface NotifierProcess {
  child: ChildProcess;
  stderr: () => string;
}
const notifiers: NotifierProcess[] = [];

async function startNotifierProcess(): Promise<NotifierProcess> {
  const child = spawn(process.execPath, [repoPath('services/notifier/dist/bin/notifier.js')], { env: broker.env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (chunk: string) => (stderr += chunk));
  const n = { child, stderr: () => stderr };
  notifiers.push(n);
  await waitFor('the notifier connected to the broker', () => stderr.includes('"notifier.started"') || (child.exitCode !== null ? Promise.reject(new Error(`notifier exited ${child.exitCode}: ${stderr}`)) : false));
  return n;
}

function stopNotifierProcess(n: NotifierProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  return new Promise((resolve) => {
    if (n.child.exitCode !== null || n.child.signalCode !== null) return resolve({ code: n.child.exitCode, signal: n.child.signalCode });
    n.child.once('exit', (code, signal) => resolve({ code, signal }));
    n.child.kill('SIGTERM');
  });
}

const rows = (): Record<string, unknown>[] => {
  const db = new Database(join(broker.stateDir, 'notify.db'), { readonly: true, fileMustExist: true });
  try {
    return db.prepare('SELECT channel, kind, outcome, http_status, reason, attempts FROM notice_delivery ORDER BY id').all() as Record<string, unknown>[];
  } finally {
    db.close();
  }
};
const waiting = (): Record<string, unknown>[] => {
  const db = new Database(join(broker.stateDir, 'notify.db'), { readonly: true, fileMustExist: true });
  try {
    return db.prepare('SELECT target, state FROM notice_outbox ORDER BY id').all() as Record<string, unknown>[];
  } finally {
    db.close();
  }
};
const hookBodies = () => received.filter((r) => r.path === '/hook').map((r) => (JSON.parse(r.body) as { notice: { message: string } }).notice.message);

beforeAll(async () => {
  receiver = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      received.push({ path: req.url ?? '', headers: req.headers, body });
      if (holding) held.push(res);
      else res.end('ok');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  tmux = await startTmuxServer();
  broker = await startBrokerProcess({
    tmuxSocket: tmux.socketName,
    config: {
      notifications: {
        agent_per_minute: 30,
        channels: [
          { name: 'hook', url: `${base}/hook`, format: 'json', per_minute: 30 },
          { name: 'phone', url: `${base}/phone`, format: 'ntfy', kinds: ['agent_message'], min_level: 'warning', per_minute: 30 },
        ],
      },
    },
  });
  brokerSockets = watchNetworkSockets(broker.pid);
  gateway = createBrokerClient({ role: 'gateway', socketPath: join(broker.socketDir, 'gateway.sock') });
}, 180_000);

afterAll(async () => {
  release();
  for (const n of notifiers) await stopNotifierProcess(n);
  brokerSockets?.stop();
  await broker?.stop();
  await tmux?.kill();
  receiver?.closeAllConnections();
  await new Promise((resolve) => receiver?.close(resolve));
});

describe('the notifier process', () => {
  it('delivers a notice to the JSON webhook and the ntfy channel once each, recorded SENT; the connection is the notifier\'s, never the broker\'s', async () => {
    const notifier = await startNotifierProcess();
    holding = true;
    await gateway.human.notify.mutate({ message: 'deploy finished on staging', level: 'warning' });
    // Both requests arrive and are held open: the TCP connections exist now.
    await waitFor('both channels reached', () => received.length === 2);
    const notifierHeld = networkSocketsOf(notifier.child.pid!).filter((s) => s.table.startsWith('tcp'));
    const brokerHeld = networkSocketsOf(broker.pid);
    release();
    expect(notifierHeld.length).toBeGreaterThan(0); // the probe sees a connection where there is one
    expect(brokerHeld).toEqual([]);
    await waitFor('both deliveries recorded', () => rows().length === 2);
    expect(rows()).toEqual(
      expect.arrayContaining([
        { channel: 'hook', kind: 'agent_message', outcome: 'SENT', http_status: 200, reason: null, attempts: 1 },
        { channel: 'phone', kind: 'agent_message', outcome: 'SENT', http_status: 200, reason: null, attempts: 1 },
      ]),
    );
    expect(hookBodies()).toEqual(['deploy finished on staging']);
    const push = received.find((r) => r.path === '/phone')!;
    expect(push.body).toBe('deploy finished on staging');
    expect(push.headers).toMatchObject({ title: 'Terminal MCP: agent message', priority: '4', tags: 'agent_message' });
    expect(waiting()).toEqual([]);
  });

  it('keeps notices raised while it is stopped waiting in the broker, and delivers each once when it returns', async () => {
    const stopped = await stopNotifierProcess(notifiers.at(-1)!);
    expect(stopped).toEqual({ code: 0, signal: null });
    await gateway.human.notify.mutate({ message: 'raised while the notifier was away', level: 'info' });
    expect(waiting()).toEqual([{ target: 'hook', state: 'PENDING' }]);
    expect(hookBodies()).not.toContain('raised while the notifier was away');
    await startNotifierProcess();
    await waitFor('the waiting notice delivered', () => hookBodies().includes('raised while the notifier was away'));
    // A later notice goes out after it: had the waiting one been sent twice, it would show.
    await gateway.human.notify.mutate({ message: 'raised after it returned', level: 'info' });
    await waitFor('the later notice delivered', () => hookBodies().includes('raised after it returned'));
    await waitFor('both recorded', () => waiting().length === 0);
    expect(hookBodies().filter((m) => m === 'raised while the notifier was away')).toHaveLength(1);
    expect(rows().filter((r) => r.channel === 'hook').map((r) => r.outcome)).toEqual(['SENT', 'SENT', 'SENT']);
  });

  it('records a send its stop cut short as UNKNOWN at the next start and does not send it again', async () => {
    holding = true;
    await gateway.human.notify.mutate({ message: 'cut by the stop', level: 'info' });
    await waitFor('the send is in flight', () => hookBodies().includes('cut by the stop'));
    // The receiver has not answered: the notifier's stop gives up on the send (bounded) and exits 0.
    expect(await stopNotifierProcess(notifiers.at(-1)!)).toEqual({ code: 0, signal: null });
    expect(waiting()).toEqual([{ target: 'hook', state: 'SENDING' }]);
    release();
    await startNotifierProcess();
    await waitFor('the cut send recorded UNKNOWN', () => waiting().length === 0);
    expect(rows().at(-1)).toMatchObject({ channel: 'hook', outcome: 'UNKNOWN', reason: 'the notifier stopped before reporting it' });
    await gateway.human.notify.mutate({ message: 'after the cut', level: 'info' });
    await waitFor('the next notice delivered', () => hookBodies().includes('after the cut'));
    expect(hookBodies().filter((m) => m === 'cut by the stop')).toHaveLength(1);
  });

  it('rides out a broker restart: it reconnects by itself and delivers what the new broker queues', async () => {
    const notifier = notifiers.at(-1)!;
    expect(brokerSockets.stop()).toEqual([]);
    broker = await broker.restart();
    brokerSockets = watchNetworkSockets(broker.pid);
    gateway = createBrokerClient({ role: 'gateway', socketPath: join(broker.socketDir, 'gateway.sock') });
    await gateway.human.notify.mutate({ message: 'after the broker restarted', level: 'info' });
    await waitFor('delivered through the new broker', () => hookBodies().includes('after the broker restarted'));
    expect(notifier.child.exitCode).toBeNull();
    await waitFor('recorded SENT', () => rows().at(-1)?.outcome === 'SENT' && waiting().length === 0);
  });

  it('the broker held no TCP or UDP socket at any moment of these deliveries', () => {
    expect(brokerSockets.stop()).toEqual([]);
  });
});
