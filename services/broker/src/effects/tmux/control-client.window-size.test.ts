// The broker's control client never changes the size of any user's window, whether the window is detached at an explicit size or follows an attached client.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTmuxServer, type TmuxTestServer, type TmuxTestSession } from '../../../../../test/src/helpers/tmux-server.js';
import { createTmuxAdapter, type ControlModeTmuxAdapter } from './adapter.js';
import { HIDDEN_SESSION_NAME } from './control-client.js';

let server: TmuxTestServer;
let adapter: ControlModeTmuxAdapter | undefined;
let sessions: TmuxTestSession[];
let watched: TmuxTestSession;

/** Every window of every user session with its size. */
async function windowSizes(): Promise<string[]> {
  const out = await server.tmux(['list-windows', '-a', '-F', '#{session_name}\t#{window_id}\t#{window_width}x#{window_height}']);
  return out
    .split('\n')
    .filter((l) => !l.startsWith(`${HIDDEN_SESSION_NAME}\t`))
    .sort();
}

beforeAll(async () => {
  server = await startTmuxServer();
  sessions = [
    await server.newSession('sized-a', 'sleep 300', { width: 100, height: 30 }),
    await server.newSession('sized-b', 'bash --norc --noprofile', { width: 100, height: 30 }),
    await server.newSession('sized-c', 'sleep 300', { width: 132, height: 43 }),
  ];
  // Attached-size scenario: a real tmux client, running inside a 90x25 pane of another
  // session on the same server, attached to `watched`. Its window follows that client.
  watched = await server.newSession('watched', 'sleep 300', { width: 100, height: 30 });
  await server.newSession(
    'viewer',
    `env -u TMUX -u TMUX_PANE tmux -L ${server.socketName} -f /dev/null -u attach-session -t '${watched.sessionId}'`,
    { width: 90, height: 25 },
  );
  await vi.waitFor(
    async () => expect(await server.tmux(['display-message', '-p', '-t', watched.sessionId, '#{session_attached}'])).toBe('1'),
    { timeout: 10_000 },
  );
});

afterAll(async () => {
  await adapter?.close();
  await server?.kill();
});

describe('window sizes', () => {
  it('stay exactly as they were while the adapter connects and runs many commands', async () => {
    // the attached client has already resized `watched` to its own size
    await vi.waitFor(async () => expect(await server.tmux(['display-message', '-p', '-t', watched.paneId, '#{window_width}'])).toBe('90'), {
      timeout: 10_000,
    });
    const before = await windowSizes();
    expect(before.filter((l) => l.startsWith('sized-a\t') || l.startsWith('sized-b\t'))).toEqual(
      expect.arrayContaining([expect.stringMatching(/\t100x30$/), expect.stringMatching(/\t100x30$/)]),
    );

    adapter = createTmuxAdapter({ socketName: server.socketName, configFile: '/dev/null' });
    expect(await adapter.waitUntilConnected(10_000)).toBe(true);
    for (let round = 0; round < 5; round++) {
      await Promise.all([
        adapter.listSessions(),
        ...[...sessions, watched].flatMap((s) => [
          adapter!.capturePane(s.paneId, { start: '-', end: '-' }),
          adapter!.paneFacts(s.paneId),
        ]),
      ]);
    }
    // give any deferred resize the time to happen before looking
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await windowSizes()).toEqual(before);

    // The control client is attached with the flags that make tmux ignore its size.
    const clients = await server.tmux(['list-clients', '-F', '#{client_control_mode}\t#{session_name}\t#{client_flags}']);
    const control = clients.split('\n').filter((l) => l.startsWith('1\t'));
    expect(control).toHaveLength(1);
    expect(control[0]).toContain(`\t${HIDDEN_SESSION_NAME}\t`);
    expect(control[0]).toContain('ignore-size');
    expect(control[0]).toContain('no-output');

    await adapter.close();
    adapter = undefined;
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await windowSizes()).toEqual(before);
  });
});
