// When the tmux server dies, every call fails fast with TMUX_UNAVAILABLE instead of hanging, and the same adapter works again once a server is back on the socket.
import { afterAll, describe, expect, it, vi } from 'vitest';
import { startTmuxServer, type TmuxTestServer } from '../../../../../test/src/helpers/tmux-server.js';
import { createTmuxAdapter, type ControlModeTmuxAdapter } from './adapter.js';

let server: TmuxTestServer | undefined;
let adapter: ControlModeTmuxAdapter | undefined;

afterAll(async () => {
  await adapter?.close();
  await server?.kill();
});

async function errorOf(p: Promise<unknown>): Promise<{ code?: string }> {
  try {
    await p;
  } catch (err) {
    return err as { code?: string };
  }
  throw new Error('expected the call to fail');
}

describe('tmux server restart', () => {
  it('fails calls fast while the server is gone and recovers without a new adapter', async () => {
    server = await startTmuxServer();
    const first = await server.newSession('before-restart', 'sleep 300');
    // A long first backoff leaves a window in which the adapter is certainly disconnected.
    adapter = createTmuxAdapter({
      socketName: server.socketName,
      configFile: '/dev/null',
      reconnect: { initialDelayMs: 1_500, maxDelayMs: 1_500 },
    });
    const a = adapter;
    expect((await a.listSessions()).map((s) => s.name)).toEqual(['before-restart']);
    const oldPid = (await a.listSessions())[0]?.serverPid;

    // Calls in flight when the server dies settle: with a reply or TMUX_UNAVAILABLE.
    const inFlight = Array.from({ length: 50 }, (_, i) =>
      i % 2 === 0 ? a.listSessions() : a.capturePane(first.paneId, { start: '-', end: '-' }),
    );
    const settling = Promise.allSettled(inFlight); // observed now: they may reject during kill()
    await server.kill();
    const settled = await settling;
    for (const r of settled) {
      if (r.status === 'rejected') expect((r.reason as { code?: string }).code).toBe('TMUX_UNAVAILABLE');
    }

    await vi.waitFor(() => expect(a.state).toBe('disconnected'), { timeout: 60_000, interval: 10 });
    const started = Date.now();
    expect((await errorOf(a.listSessions())).code).toBe('TMUX_UNAVAILABLE');
    expect((await errorOf(a.paneFacts(first.paneId))).code).toBe('TMUX_UNAVAILABLE');
    expect((await errorOf(a.capturePane(first.paneId))).code).toBe('TMUX_UNAVAILABLE');
    expect(Date.now() - started).toBeLessThan(25_000); // fails fast: below the 30 s command timeout even on a busy machine (immediate here)
    expect((await a.health()).ok).toBe(false);

    // A new server with sessions on the same socket name.
    server = await startTmuxServer({ socketName: server.socketName });
    await server.newSession('after-restart', 'sleep 300');
    await server.newSession('after-restart-2', 'sleep 300');
    await vi.waitFor(
      async () => expect((await a.listSessions()).map((s) => s.name).sort()).toEqual(['after-restart', 'after-restart-2']),
      { timeout: 60_000, interval: 100 },
    );
    const sessions = await a.listSessions();
    expect(sessions[0]?.serverPid).not.toBe(oldPid);
    expect(await a.capturePane(sessions[0]?.activePane?.paneId ?? '%0')).toBeTypeOf('string');
    expect((await a.health()).ok).toBe(true);
  });

  it('recovers again after a second restart, and after its hidden session is killed', async () => {
    const a = adapter as ControlModeTmuxAdapter;
    const socketName = (server as TmuxTestServer).socketName;
    await (server as TmuxTestServer).kill();
    await vi.waitFor(() => expect(a.state).not.toBe('connected'), { timeout: 60_000, interval: 10 });
    server = await startTmuxServer({ socketName });
    await server.newSession('third-server', 'sleep 300');
    await vi.waitFor(async () => expect((await a.listSessions()).map((s) => s.name)).toEqual(['third-server']), {
      timeout: 15_000,
      interval: 100,
    });

    // Someone kills the broker's hidden session: the adapter notices and recreates it.
    await server.tmux(['kill-session', '-t', '__terminal_mcp_control']);
    await vi.waitFor(
      async () => {
        expect(a.state).toBe('connected');
        expect((await a.listSessions()).map((s) => s.name)).toEqual(['third-server']);
        expect(await (server as TmuxTestServer).tmux(['list-sessions', '-F', '#{session_name}'])).toContain('__terminal_mcp_control');
      },
      { timeout: 60_000, interval: 100 },
    );
  });
});
