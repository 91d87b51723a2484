// tmux 3.3a crashes when a session is created while a control client is half identified; the broker's own session changes wait for its own control clients to finish identifying (identify-gate.ts).
import { createConnection, type Socket } from 'node:net';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { startTmuxServer, type TmuxTestServer } from '../../../../../test/src/helpers/tmux-server.js';
import { createTmuxAdapter, type ControlModeTmuxAdapter } from './adapter.js';
import { spawnControlProcess, type ControlProcess } from './control-process.js';
import { tmuxEnvironment } from './control-client.js';
import { acquireIdentifyTurn, acquireSettledIdentifyTurn, identifyGateKey, noteSessionChange, SETTLE_MAX_MS, SETTLE_MS } from './identify-gate.js';

const servers: TmuxTestServer[] = [];
const sockets: Socket[] = [];
const adapters: ControlModeTmuxAdapter[] = [];

afterEach(async () => {
  // The server first: a half-identified client that disconnects crashes tmux 3.3a too.
  for (const s of servers.splice(0)) await s.kill();
  for (const s of sockets.splice(0)) s.destroy();
  for (const a of adapters.splice(0)) await a.close();
});

/** What a `tmux -C` client is after its first identify message: marked a control client,
 * its control state not yet set up. imsg header (type, length, flags, peer id = protocol
 * version 8, pid), then MSG_IDENTIFY_FLAGS (100) with CLIENT_CONTROL (0x2000). */
async function halfIdentifiedControlClient(socketPath: string): Promise<void> {
  const socket = createConnection(socketPath);
  sockets.push(socket);
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  const message = Buffer.alloc(20);
  message.writeUInt32LE(100, 0);
  message.writeUInt16LE(20, 4);
  message.writeUInt32LE(8, 8);
  message.writeUInt32LE(process.pid, 12);
  message.writeInt32LE(0x2000, 16);
  await new Promise<void>((resolve, reject) => socket.write(message, (err) => (err ? reject(err) : resolve())));
}

/** Asked directly, outside the helper (whose commands wait for their turn). */
async function rawTmux(server: TmuxTestServer, args: string[]): Promise<{ exitCode?: number; stdout: string; stderr: string }> {
  return execa('tmux', ['-L', server.socketName, '-N', ...args], { env: tmuxEnvironment(), extendEnv: false, reject: false, stdin: 'ignore' });
}

describe('identify gate', () => {
  it('is needed: tmux 3.3a dies when a session is created while a control client is half identified', async () => {
    const server = await startTmuxServer();
    servers.push(server);
    await halfIdentifiedControlClient(server.socketPath);
    const created = await rawTmux(server, ['new-session', '-d', '-s', 'user', 'sleep 300']);
    expect(created.stderr).toContain('server exited unexpectedly');
    expect((await rawTmux(server, ['list-sessions'])).exitCode).not.toBe(0);
  });

  it('keeps the adapter from creating its hidden session while another of our control clients identifies', async () => {
    const server = await startTmuxServer();
    servers.push(server);
    await server.newSession('user', 'sleep 300');
    // One of our control clients is identifying: it holds the turn.
    const release = await acquireIdentifyTurn(identifyGateKey(server.socketName, tmuxEnvironment()));
    await halfIdentifiedControlClient(server.socketPath);
    const adapter = createTmuxAdapter({ socketName: server.socketName, configFile: '/dev/null' });
    adapters.push(adapter);
    // Long enough for an adapter that does not wait to create its session many times over.
    expect(await adapter.waitUntilConnected(1_500)).toBe(false);
    const sessions = await rawTmux(server, ['list-sessions', '-F', '#{session_name}']);
    expect(sessions.stderr).toBe('');
    expect(sessions.stdout).toBe('user');
    await server.kill();
    servers.splice(0);
    release();
  });
});

describe('leaving', () => {
  it('is needed: tmux 3.3a dies when a control client detaches while another is half identified', async () => {
    const server = await startTmuxServer();
    servers.push(server);
    await server.newSession('user', 'sleep 300');
    const attached = execa('tmux', ['-L', server.socketName, '-C', 'attach', '-t', 'user'], { env: tmuxEnvironment(), extendEnv: false, reject: false });
    await new Promise<void>((resolve) => attached.stdout?.once('data', () => resolve()));
    await halfIdentifiedControlClient(server.socketPath);
    attached.stdin?.end(); // detach: tmux writes %client-detached to every control client
    await attached;
    expect((await rawTmux(server, ['list-sessions'])).stderr).toMatch(/no server running|error connecting|server exited/);
  });

  it('keeps a control client of ours from detaching while another of ours identifies', async () => {
    const server = await startTmuxServer();
    servers.push(server);
    await server.newSession('user', 'sleep 300');
    const key = identifyGateKey(server.socketName, tmuxEnvironment());
    let firstOutput!: () => void;
    const output = new Promise<void>((resolve) => (firstOutput = resolve));
    const watcher: ControlProcess = spawnControlProcess({
      tmuxPath: 'tmux',
      args: ['-L', server.socketName, '-N', '-C', 'attach-session', '-t', 'user', '-f', 'ignore-size,read-only'],
      env: tmuxEnvironment(),
      onData: () => firstOutput(),
      onEnd: () => {},
      identifyTurn: key,
    });
    await output;
    // Another client of ours is identifying: it holds the turn.
    const release = await acquireIdentifyTurn(key);
    await halfIdentifiedControlClient(server.socketPath);
    const stopped = watcher.stop(1_000);
    // Given ample time to leave (it must not): on the old code it detached at once and the
    // server died with it.
    const exitedMeanwhile = await Promise.race([watcher.exited.then(() => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 3_000))]);
    expect(exitedMeanwhile).toBe(false);
    expect((await rawTmux(server, ['list-sessions', '-F', '#{session_name}'])).stdout).toBe('user');
    // Cleanup: the server goes first (a half-identified client that disconnects crashes it).
    await server.kill();
    servers.splice(0);
    release();
    await stopped;
  });
});

describe('settled identify turns', () => {
  /** A clock that moves only when read: each reading is `step` ms after the last. */
  const clock = (start: number, step: number) => {
    let t = start - step;
    const readings: number[] = [];
    return { now: () => (readings.push((t += step)), t), readings };
  };

  it('are given at once when no session change was seen on the server', async () => {
    const c = clock(10_000, 0);
    const release = await acquireSettledIdentifyTurn('settle-test-none', c.now);
    release();
    expect(c.readings.length).toBeLessThanOrEqual(3);
  });

  it('wait until the sessions have been still for SETTLE_MS after a change', async () => {
    const key = 'settle-test-burst';
    noteSessionChange(key, 10_000);
    const c = clock(10_000, SETTLE_MS / 3);
    const release = await acquireSettledIdentifyTurn(key, c.now, async () => {});
    release();
    // Given at the first reading at least SETTLE_MS after the change, not before.
    expect(c.readings.at(-1)! - 10_000).toBeGreaterThanOrEqual(SETTLE_MS);
    expect(c.readings.at(-1)! - 10_000).toBeLessThan(SETTLE_MS + SETTLE_MS / 3 * 2 + 1);
  });

  it('are given after SETTLE_MAX_MS on a server whose sessions never rest', async () => {
    const key = 'settle-test-restless';
    const step = SETTLE_MS / 2;
    let t = 50_000 - step;
    // Every reading of the clock sees a change that just happened.
    const now = () => {
      t += step;
      noteSessionChange(key, t);
      return t;
    };
    const release = await acquireSettledIdentifyTurn(key, now, async () => {});
    release();
    expect(t - 50_000).toBeGreaterThanOrEqual(SETTLE_MAX_MS);
    expect(t - 50_000).toBeLessThan(SETTLE_MAX_MS + 3 * step);
  });

  it('are turns: a second client waits for the first to release', async () => {
    const key = 'settle-test-order';
    const first = await acquireSettledIdentifyTurn(key);
    let second = false;
    const pending = acquireSettledIdentifyTurn(key).then((release) => {
      second = true;
      release();
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(second).toBe(false);
    first();
    await pending;
    expect(second).toBe(true);
  });
});
