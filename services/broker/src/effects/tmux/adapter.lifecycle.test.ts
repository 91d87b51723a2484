// The adapter owns only its hidden control session: it creates it (and the server, when none runs), keeps it, and removes only it on close, never the user's server or sessions.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startTmuxServer, type TmuxTestServer } from '../../../../../test/src/helpers/tmux-server.js';
import { createTmuxAdapter, type ControlModeTmuxAdapter } from './adapter.js';
import { HIDDEN_SESSION_NAME, tmuxEnvironment } from './control-client.js';

const adapters: ControlModeTmuxAdapter[] = [];
const servers: TmuxTestServer[] = [];

function adapterFor(server: TmuxTestServer): ControlModeTmuxAdapter {
  const adapter = createTmuxAdapter({ socketName: server.socketName, configFile: '/dev/null' });
  adapters.push(adapter);
  return adapter;
}

async function newServer(): Promise<TmuxTestServer> {
  const server = await startTmuxServer();
  servers.push(server);
  return server;
}

async function sessionNames(server: TmuxTestServer): Promise<string[]> {
  return (await server.tmux(['list-sessions', '-F', '#{session_name}'])).split('\n').sort();
}

afterEach(async () => {
  for (const a of adapters.splice(0)) await a.close();
  for (const s of servers.splice(0)) await s.kill();
});

describe('adapter lifecycle', () => {
  it('starts a server with only its hidden session when none runs, and close() lets it exit', async () => {
    const server = await newServer();
    await server.kill(); // the socket name is ours, the server is gone
    const adapter = adapterFor(server);
    expect(await adapter.waitUntilConnected(10_000)).toBe(true);
    expect(await adapter.listSessions()).toEqual([]);
    expect(await sessionNames(server)).toEqual([HIDDEN_SESSION_NAME]);
    await adapter.close();
    // nothing else kept that server alive (exit-empty)
    await vi.waitFor(() => expect(server.tmux(['list-sessions'])).rejects.toThrow(), { timeout: 5_000 });
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
    await vi.waitFor(async () => expect(await sessionNames(server)).toEqual(['user-one', 'user-two']), { timeout: 5_000 });
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
      { timeout: 10_000, interval: 50 },
    );
    expect((await adapter.listSessions()).map((s) => s.name)).toEqual(['user-session']);
    expect(await server.tmux(['display-message', '-p', '-t', 'user-session', '#{window_width}x#{window_height}'])).toBe('100x30');
  });

  it('fails fast with TMUX_UNAVAILABLE when tmux cannot be started at all', async () => {
    const adapter = createTmuxAdapter({ socketName: 'tmcp-test-no-binary', tmuxPath: '/nonexistent/tmux' });
    adapters.push(adapter);
    await vi.waitFor(() => expect(adapter.state).toBe('disconnected'), { timeout: 5_000, interval: 10 });
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
