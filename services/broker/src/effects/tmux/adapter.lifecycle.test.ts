// tmux belongs to the user: the adapter never starts a server (it waits for one and attaches), owns only its hidden control session inside the user's server, leaves a server it would keep alive alone, and removes only its own session on close.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { execa } from 'execa';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startTmuxServer, type TmuxTestServer } from '../../../../../test/src/helpers/tmux-server.js';
import { createTmuxAdapter, type ControlModeTmuxAdapter } from './adapter.js';
import { HIDDEN_SESSION_NAME, tmuxEnvironment } from './control-client.js';
import { ownerPaneCommands } from './hidden-session.js';
import { tmuxSocketPath } from './server-socket.js';

const adapters: ControlModeTmuxAdapter[] = [];
const servers: TmuxTestServer[] = [];

function adapterFor(server: TmuxTestServer): ControlModeTmuxAdapter {
  const adapter = createTmuxAdapter({ socketName: server.socketName, configFile: '/dev/null' });
  adapters.push(adapter);
  return adapter;
}

/** A socket name whose server was started and killed, its socket file left behind as
 * tmux 3.3a leaves it (the helper removes it at the end of the file). */
async function killedServer(): Promise<TmuxTestServer> {
  const server = await startTmuxServer();
  await server.kill({ leaveSocketFile: true });
  return server;
}

async function newServer(): Promise<TmuxTestServer> {
  const server = await startTmuxServer();
  servers.push(server);
  return server;
}

async function sessionNames(server: TmuxTestServer): Promise<string[]> {
  return (await server.tmux(['list-sessions', '-F', '#{session_name}'])).split('\n').sort();
}

/** The hidden pane runs the loop that ends once this process (the "broker") has gone,
 * and the window does not stay when it does. */
async function expectOwnedByUs(server: TmuxTestServer): Promise<void> {
  const target = `=${HIDDEN_SESSION_NAME}:`;
  await vi.waitFor(
    async () => expect(await server.tmux(['display-message', '-p', '-t', target, '#{pane_start_command}'])).toContain(`kill -0 ${process.pid} `),
    { timeout: 60_000, interval: 50 },
  );
  expect(await server.tmux(['show-options', '-wv', '-t', target, 'remain-on-exit'])).toBe('off');
}

/** Whether any tmux server answers on this socket name, asked without starting one. */
async function serverAnswers(socketName: string): Promise<boolean> {
  const result = await execa('tmux', ['-L', socketName, '-N', 'list-sessions'], { env: tmuxEnvironment(), extendEnv: false, reject: false, stdin: 'ignore' });
  return result.exitCode === 0;
}

/** No server appears on the socket during `ms` (checked every 100 ms). */
async function expectNoServerFor(socketName: string, ms: number): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    expect(await serverAnswers(socketName)).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function errorOf(p: Promise<unknown>): Promise<{ code?: string; hint?: string; message?: string }> {
  try {
    await p;
  } catch (err) {
    return err as { code?: string; hint?: string };
  }
  throw new Error('expected the call to fail');
}

afterEach(async () => {
  for (const a of adapters.splice(0)) await a.close();
  for (const s of servers.splice(0)) await s.kill();
});

describe('adapter lifecycle', () => {
  it('never starts a server: with none running it answers TMUX_UNAVAILABLE with a hint, then attaches when the user starts one', async () => {
    for (const socketName of [`tmcp-test-${process.pid}-never-${randomBytes(3).toString('hex')}`, (await killedServer()).socketName]) {
      const adapter = createTmuxAdapter({ socketName, configFile: '/dev/null', reconnect: { initialDelayMs: 50, maxDelayMs: 200 } });
      adapters.push(adapter);
      await vi.waitFor(async () => expect((await adapter.health()).detail).toMatch(/^no tmux server is running/), { timeout: 60_000, interval: 50 });
      const err = await errorOf(adapter.listSessions());
      expect(err.code).toBe('TMUX_UNAVAILABLE');
      expect(err.hint).toContain('tmux new -s');
      expect(err.hint).not.toContain('/');
      // Many polls later there is still no server: the adapter never created one.
      await expectNoServerFor(socketName, 2_000);
      expect(await adapter.waitUntilConnected(0)).toBe(false);

      // The user starts tmux: the adapter attaches by itself and reads again.
      const server = await startTmuxServer({ socketName });
      servers.push(server);
      await server.newSession('user-started', 'sleep 300');
      await vi.waitFor(async () => expect((await adapter.listSessions()).map((s) => s.name)).toEqual(['user-started']), {
        timeout: 15_000,
        interval: 100,
      });
      expect((await adapter.health()).ok).toBe(true);
    }
  });

  it('leaves when its hidden session is the last one and the server would exit without it, so the server does', async () => {
    const server = await newServer();
    const only = await server.newSession('last-one', 'sleep 300');
    await server.tmux(['set-option', '-s', 'exit-empty', 'on']); // tmux's default
    const adapter = createTmuxAdapter({ socketName: server.socketName, configFile: '/dev/null', reconnect: { initialDelayMs: 50, maxDelayMs: 200 } });
    adapters.push(adapter);
    expect((await adapter.listSessions()).map((s) => s.name)).toEqual(['last-one']);
    // The hidden session goes with this process, even one that is killed: its pane waits
    // for our pid (the SIGKILL itself: test/src/tmux-ownership.test.ts).
    await expectOwnedByUs(server);

    await server.tmux(['kill-session', '-t', only.sessionId]);
    await vi.waitFor(async () => expect(await serverAnswers(server.socketName)).toBe(false), { timeout: 60_000, interval: 50 });
    await vi.waitFor(async () => expect((await adapter.health()).detail).toMatch(/^no tmux server is running/), { timeout: 60_000, interval: 50 });
    await expectNoServerFor(server.socketName, 1_500);

    // The next server the user starts is attached to again.
    const next = await startTmuxServer({ socketName: server.socketName });
    servers.push(next);
    await next.newSession('next-one', 'sleep 300');
    await vi.waitFor(async () => expect((await adapter.listSessions()).map((s) => s.name)).toEqual(['next-one']), { timeout: 60_000, interval: 100 });
  });

  it('stays on an empty server that lives without it (exit-empty off) and lists no sessions', async () => {
    const server = await newServer(); // the test helper's servers run with exit-empty off
    const adapter = adapterFor(server);
    expect(await adapter.listSessions()).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(adapter.state).toBe('connected');
    expect(await sessionNames(server)).toEqual([HIDDEN_SESSION_NAME]);
  });

  it('ties a session to an owner pid: it goes once the owner has gone, and stays (cat) for a pid the server cannot see', async () => {
    const server = await newServer();
    const tie = async (name: string, pid: number) => {
      await server.tmux(['new-session', '-d', '-s', name, 'cat']);
      const id = await server.tmux(['display-message', '-p', '-t', `=${name}:`, '#{session_id}']);
      // The commands as the control client sends them, through tmux's own parser.
      await server.tmux(['source-file', '-'], `${ownerPaneCommands(id, pid).join('\n')}\n`);
    };
    const owner = spawn('sleep', ['600'], { stdio: 'ignore' });
    await tie('owned', owner.pid!);
    await vi.waitFor(async () => expect(await server.tmux(['display-message', '-p', '-t', '=owned:', '#{pane_current_command}'])).toBe('sh'), { timeout: 60_000, interval: 50 });
    const gone = spawn('true', { stdio: 'ignore' });
    await new Promise((resolve) => gone.once('exit', resolve));
    await tie('unseen', gone.pid!);
    owner.kill();
    await vi.waitFor(async () => expect(await sessionNames(server)).toEqual(['unseen']), { timeout: 60_000, interval: 100 });
    expect(await server.tmux(['display-message', '-p', '-t', '=unseen:', '#{pane_current_command}'])).toBe('cat');
  });

  it('reuses a hidden session a crashed broker left behind instead of adding a second one', async () => {
    const server = await newServer();
    await server.newSession('user', 'sleep 300');
    // What a broker of an older version left after a crash: a detached hidden session running cat.
    await server.tmux(['new-session', '-d', '-s', HIDDEN_SESSION_NAME, 'cat']);
    const adapter = adapterFor(server);
    expect(await adapter.waitUntilConnected(10_000)).toBe(true);
    expect(await sessionNames(server)).toEqual([HIDDEN_SESSION_NAME, 'user']);
    // The left-behind `cat` pane is replaced by the loop that ends with this broker.
    await expectOwnedByUs(server);
    expect((await adapter.listSessions()).map((s) => s.name)).toEqual(['user']);
  });

  it('computes the socket path tmux uses, so it can wait for a server with a stat', async () => {
    const server = await newServer();
    expect(tmuxSocketPath(server.socketName)).toBe(server.socketPath);
  });

  it('close() removes the hidden session and leaves the user server and sessions alone', async () => {
    const server = await newServer();
    await server.newSession('user-one', 'sleep 300');
    await server.newSession('user-two', 'sleep 300');
    const pid = await server.tmux(['display-message', '-p', '#{pid}']);
    const adapter = adapterFor(server);
    expect((await adapter.listSessions()).map((s) => s.name).sort()).toEqual(['user-one', 'user-two']);
    expect(await sessionNames(server)).toContain(HIDDEN_SESSION_NAME);

    await adapter.close();
    await adapter.close(); // idempotent
    await vi.waitFor(async () => expect(await sessionNames(server)).toEqual(['user-one', 'user-two']), { timeout: 60_000 });
    expect(await server.tmux(['display-message', '-p', '#{pid}'])).toBe(pid);
    await expect(adapter.listSessions()).rejects.toMatchObject({ code: 'TMUX_UNAVAILABLE' });
    expect((await adapter.health()).ok).toBe(false);
  });

  it('two adapters on one server share the hidden session; closing one leaves the other working', async () => {
    const server = await newServer();
    await server.newSession('shared', 'sleep 300');
    const one = adapterFor(server);
    const two = adapterFor(server);
    expect(await one.waitUntilConnected(10_000)).toBe(true);
    expect(await two.waitUntilConnected(10_000)).toBe(true);
    await one.close();
    expect((await two.listSessions()).map((s) => s.name)).toEqual(['shared']);
    expect(two.state).toBe('connected');
    expect(await sessionNames(server)).toContain(HIDDEN_SESSION_NAME);
  });

  it('several adapters attaching to a new server at once share one hidden session and never crash the server', async () => {
    // Two control clients creating the same session at once (`new-session -A`) crash a
    // tmux 3.3a server; the adapter creates it detached first instead.
    for (let round = 0; round < 5; round++) {
      const server = await newServer();
      await server.newSession('busy', 'sleep 300');
      const pid = await server.tmux(['display-message', '-p', '#{pid}']);
      const group = [adapterFor(server), adapterFor(server), adapterFor(server), adapterFor(server)];
      for (const a of group) expect(await a.waitUntilConnected(10_000)).toBe(true);
      expect(await server.tmux(['display-message', '-p', '#{pid}'])).toBe(pid);
      expect(await sessionNames(server)).toEqual([HIDDEN_SESSION_NAME, 'busy']);
      for (const a of adapters.splice(0)) await a.close();
    }
  });

  it('notices when its hidden session is killed under detach-on-destroy off, and recreates it', async () => {
    const server = await newServer();
    await server.tmux(['set-option', '-g', 'detach-on-destroy', 'off']);
    await server.newSession('user-session', 'sleep 300', { width: 100, height: 30 });
    const adapter = adapterFor(server);
    expect(await adapter.waitUntilConnected(10_000)).toBe(true);
    const states: string[] = [];
    adapter.onStateChange((s) => states.push(s));
    await server.tmux(['kill-session', '-t', HIDDEN_SESSION_NAME]);
    await vi.waitFor(
      async () => {
        expect(states).toContain('disconnected');
        expect(adapter.state).toBe('connected');
        const clients = await server.tmux(['list-clients', '-F', '#{client_control_mode}\t#{session_name}']);
        expect(clients.split('\n').filter((l) => l.startsWith('1\t'))).toEqual([`1\t${HIDDEN_SESSION_NAME}`]);
      },
      { timeout: 60_000, interval: 50 },
    );
    expect((await adapter.listSessions()).map((s) => s.name)).toEqual(['user-session']);
    expect(await server.tmux(['display-message', '-p', '-t', 'user-session', '#{window_width}x#{window_height}'])).toBe('100x30');
  });

  it('fails fast with TMUX_UNAVAILABLE when tmux cannot be started at all', async () => {
    const adapter = createTmuxAdapter({ socketName: 'tmcp-test-no-binary', tmuxPath: '/nonexistent/tmux' });
    adapters.push(adapter);
    await vi.waitFor(() => expect(adapter.state).toBe('disconnected'), { timeout: 60_000, interval: 10 });
    await expect(adapter.listSessions()).rejects.toMatchObject({ code: 'TMUX_UNAVAILABLE' });
    const health = await adapter.health();
    expect(health.ok).toBe(false);
    expect(health.detail).not.toContain('/nonexistent');
  });

  it('refuses a socket name that is not a plain name', () => {
    for (const bad of ['', '-L', 'a/b', '../x', 'a b', 'x;y']) {
      expect(() => createTmuxAdapter({ socketName: bad })).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    }
  });

  it('spawns tmux without TMUX and TMUX_PANE, which would redirect it to another server', () => {
    const env = tmuxEnvironment({ TMUX: '/tmp/tmux-0/default,1,0', TMUX_PANE: '%1', PATH: '/usr/bin' });
    expect(env).toEqual({ PATH: '/usr/bin' });
  });
});
