// Watching a session's output attaches one read-only, ignore-size control client per session (ref-counted), delivers its panes' output, never resizes a window or counts as an attached user, ends its subscribers when the session or tmux goes, and leaves no client behind.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTmuxServer, type TmuxTestServer, type TmuxTestSession } from '../../../../../test/src/helpers/tmux-server.js';
import { createTmuxAdapter, type ControlModeTmuxAdapter } from './adapter.js';
import { HIDDEN_SESSION_NAME } from './control-client.js';
import { createPaneWatcher, WATCHER_TERM, type PaneWatcher, type PaneWatchListener } from './pane-watch.js';

const GRACE_MS = 150;

let server: TmuxTestServer;
let adapter: ControlModeTmuxAdapter;
let watcher: PaneWatcher;

interface Recorder extends PaneWatchListener {
  text(): string;
  ended: { code: string } | null;
}

function recorder(): Recorder {
  const chunks: Buffer[] = [];
  const r: Recorder = {
    ended: null,
    onOutput: (c) => chunks.push(c.data),
    onEnd: (e) => {
      r.ended = { code: e.code };
    },
    text: () => Buffer.concat(chunks).toString('utf8'),
  };
  return r;
}

/** Every user window with its size (the hidden control session excluded). */
async function windowSizes(): Promise<string[]> {
  const out = await server.tmux(['list-windows', '-a', '-F', '#{session_name}\t#{window_id}\t#{window_width}x#{window_height}']);
  return out
    .split('\n')
    .filter((l) => !l.startsWith(`${HIDDEN_SESSION_NAME}\t`))
    .sort();
}

/** Our watcher clients as tmux lists them: session id and flags. */
async function watcherClients(): Promise<string[]> {
  const out = await server.tmux(['list-clients', '-F', '#{client_termname}\t#{session_id}\t#{client_flags}']);
  return out
    .split('\n')
    .filter((l) => l.startsWith(`${WATCHER_TERM}\t`))
    .map((l) => l.slice(WATCHER_TERM.length + 1));
}

const attachedOf = async (sessionId: string) => (await adapter.listSessions()).find((s) => s.sessionId === sessionId)?.attached;

beforeAll(async () => {
  server = await startTmuxServer();
  adapter = createTmuxAdapter({ socketName: server.socketName, configFile: '/dev/null' });
  expect(await adapter.waitUntilConnected(10_000)).toBe(true);
  watcher = createPaneWatcher({ socketName: server.socketName, graceMs: GRACE_MS });
});

afterEach(async () => {
  // Every test leaves no watcher behind.
  await vi.waitFor(async () => expect(await watcherClients()).toEqual([]), { timeout: 60_000, interval: 50 });
  expect(watcher.watchedSessions()).toEqual([]);
});

afterAll(async () => {
  await watcher?.close();
  await adapter?.close();
  await server?.kill();
});

describe('pane output watcher', () => {
  it('delivers output of the session it watches, and only of that session', async () => {
    const watched = await server.newSession('watch-out', 'bash --norc --noprofile', { width: 100, height: 30 });
    const other = await server.newSession('watch-other', 'bash --norc --noprofile', { width: 100, height: 30 });
    const r = recorder();
    const sub = watcher.watch(watched.sessionId, r);
    const identity = await sub.ready;
    expect(identity.sessionId).toBe(watched.sessionId);
    expect(identity.serverPid).toBe(Number(await server.tmux(['display-message', '-p', '#{pid}'])));

    await server.tmux(['send-keys', '-t', other.paneId, 'echo other-session-marker', 'Enter']);
    await server.tmux(['send-keys', '-t', watched.paneId, 'echo "caf\u00e9 $((6*7))"', 'Enter']);
    await vi.waitFor(() => expect(r.text()).toContain('caf\u00e9 42'), { timeout: 60_000, interval: 20 });
    expect(r.text()).not.toContain('other-session-marker');
    sub.unsubscribe();
    await server.tmux(['kill-session', '-t', watched.sessionId]);
    await server.tmux(['kill-session', '-t', other.sessionId]);
  });

  it('never resizes a window and never counts as an attached client', async () => {
    const sized = await server.newSession('watch-sized', 'bash --norc --noprofile', { width: 123, height: 37 });
    const small = await server.newSession('watch-small', 'sleep 300', { width: 40, height: 10 });
    // A real user client (a tmux client inside a 90x25 pane) attached to `viewed`.
    const viewed = await server.newSession('watch-viewed', 'sleep 300', { width: 100, height: 30 });
    const viewer = await server.newSession(
      'watch-viewer',
      `env -u TMUX -u TMUX_PANE tmux -L ${server.socketName} -f /dev/null -u attach-session -t '${viewed.sessionId}'`,
      { width: 90, height: 25 },
    );
    await vi.waitFor(async () => expect(await attachedOf(viewed.sessionId)).toBe(1), { timeout: 60_000, interval: 50 });
    await vi.waitFor(async () => expect(await server.tmux(['display-message', '-p', '-t', viewed.paneId, '#{window_width}'])).toBe('90'), {
      timeout: 10_000,
    });
    const sizesBefore = await windowSizes();
    expect(sizesBefore).toEqual(expect.arrayContaining([expect.stringMatching(/^watch-sized\t@\d+\t123x37$/), expect.stringMatching(/^watch-small\t@\d+\t40x10$/)]));

    // Two subscribers of one session share one client; three sessions are watched.
    const subs = [
      watcher.watch(sized.sessionId, recorder()),
      watcher.watch(sized.sessionId, recorder()),
      watcher.watch(small.sessionId, recorder()),
      watcher.watch(viewed.sessionId, recorder()),
    ];
    await Promise.all(subs.map((s) => s.ready));
    await server.tmux(['send-keys', '-t', sized.paneId, 'seq 1 200', 'Enter']);
    await new Promise((resolve) => setTimeout(resolve, 300));

    const clients = await watcherClients();
    expect(clients).toHaveLength(3);
    for (const c of clients) {
      expect(c).toContain('control-mode');
      expect(c).toContain('ignore-size');
      expect(c).toContain('read-only');
      expect(c).not.toContain('no-output');
    }
    // tmux itself counts our clients; the adapter does not.
    expect(await server.tmux(['display-message', '-p', '-t', sized.sessionId, '#{session_attached}'])).toBe('1');
    expect(await attachedOf(sized.sessionId)).toBe(0);
    expect(await attachedOf(small.sessionId)).toBe(0);
    expect(await attachedOf(viewed.sessionId)).toBe(1);
    expect(await attachedOf(viewer.sessionId)).toBe(0);
    expect(await windowSizes()).toEqual(sizesBefore);

    for (const s of subs) s.unsubscribe();
    await vi.waitFor(async () => expect(await watcherClients()).toEqual([]), { timeout: 60_000, interval: 50 });
    expect(await windowSizes()).toEqual(sizesBefore);
    for (const s of [viewer, sized, small, viewed]) await server.tmux(['kill-session', '-t', s.sessionId]);
  });

  it('detaches after the grace period when the last subscriber leaves, not before', async () => {
    const s = await server.newSession('watch-grace', 'bash --norc --noprofile');
    const first = watcher.watch(s.sessionId, recorder());
    await first.ready;
    first.unsubscribe();
    // Back within the grace period: the same client is reused.
    const again = recorder();
    const second = watcher.watch(s.sessionId, again);
    await second.ready;
    expect(await watcherClients()).toHaveLength(1);
    await new Promise((resolve) => setTimeout(resolve, GRACE_MS * 2));
    expect(await watcherClients()).toHaveLength(1);
    await server.tmux(['send-keys', '-t', s.paneId, 'echo still-watched', 'Enter']);
    await vi.waitFor(() => expect(again.text()).toContain('still-watched'), { timeout: 60_000, interval: 20 });
    second.unsubscribe();
    second.unsubscribe(); // idempotent
    await vi.waitFor(async () => expect(await watcherClients()).toEqual([]), { timeout: 60_000, interval: 50 });
    expect(again.ended).toBeNull(); // leaving is not an error for those who left
    await server.tmux(['kill-session', '-t', s.sessionId]);
  });

  it('ends its subscribers when the session is killed, also under detach-on-destroy off', async () => {
    const a = await server.newSession('watch-doomed', 'bash --norc --noprofile');
    const r = recorder();
    await watcher.watch(a.sessionId, r).ready;
    await server.tmux(['kill-session', '-t', a.sessionId]);
    await vi.waitFor(() => expect(r.ended).toEqual({ code: 'SESSION_NOT_FOUND' }), { timeout: 60_000, interval: 20 });

    // With detach-on-destroy off tmux would move the client into another session.
    await server.tmux(['set-option', '-g', 'detach-on-destroy', 'off']);
    try {
      const b = await server.newSession('watch-doomed-2', 'bash --norc --noprofile');
      const survivor = await server.newSession('watch-survivor', 'bash --norc --noprofile');
      const rb = recorder();
      await watcher.watch(b.sessionId, rb).ready;
      await server.tmux(['kill-session', '-t', b.sessionId]);
      await vi.waitFor(() => expect(rb.ended?.code).toBe('SESSION_NOT_FOUND'), { timeout: 60_000, interval: 20 });
      await server.tmux(['send-keys', '-t', survivor.paneId, 'echo survivor-marker', 'Enter']);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(rb.text()).not.toContain('survivor-marker');
      await server.tmux(['kill-session', '-t', survivor.sessionId]);
    } finally {
      await server.tmux(['set-option', '-g', 'detach-on-destroy', 'on']);
    }
  });

  it('fails the watch of a session that does not exist', async () => {
    const r = recorder();
    const sub = watcher.watch('$999999', r);
    await expect(sub.ready).rejects.toMatchObject({ code: 'SESSION_NOT_FOUND' });
    expect(r.ended?.code).toBe('SESSION_NOT_FOUND');
    expect(() => watcher.watch('not-an-id', recorder())).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
  });
});

describe('pane output watcher when tmux dies', () => {
  let own: TmuxTestServer;
  let ownWatcher: PaneWatcher;
  let session: TmuxTestSession;

  afterAll(async () => {
    await ownWatcher?.close();
    await own?.kill();
  });

  it('ends every subscriber when the tmux server dies, and never reattaches by itself', async () => {
    own = await startTmuxServer();
    ownWatcher = createPaneWatcher({ socketName: own.socketName, graceMs: GRACE_MS });
    session = await own.newSession('watch-server-dies', 'bash --norc --noprofile');
    const r1 = recorder();
    const r2 = recorder();
    await Promise.all([ownWatcher.watch(session.sessionId, r1).ready, ownWatcher.watch(session.sessionId, r2).ready]);
    await own.kill();
    await vi.waitFor(
      () => {
        // tmux 3.3a says a bare `%exit` for a killed server as for a killed session.
        expect(r1.ended?.code).toMatch(/^(TMUX_UNAVAILABLE|SESSION_NOT_FOUND)$/);
        expect(r2.ended).toEqual(r1.ended);
      },
      { timeout: 60_000, interval: 20 },
    );
    expect(ownWatcher.watchedSessions()).toEqual([]);
    // A new server reuses `$0`: nothing attaches to it unasked.
    own = await startTmuxServer({ socketName: own.socketName });
    await own.newSession('after-restart', 'sleep 300');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await own.tmux(['list-clients', '-F', '#{client_termname}'])).not.toContain(WATCHER_TERM);
  });
});
