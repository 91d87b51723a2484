// tmux 3.3a crashes when a session is created while a control client is half identified; the broker's own session changes wait for its own control clients to finish identifying (identify-gate.ts).
import { createConnection, type Socket } from 'node:net';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { startTmuxServer, type TmuxTestServer } from '../../../../../test/src/helpers/tmux-server.js';
import { createTmuxAdapter, type ControlModeTmuxAdapter } from './adapter.js';
import { tmuxEnvironment } from './control-client.js';
import { acquireIdentifyTurn, identifyGateKey } from './identify-gate.js';

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
