// findSession (name -> id hint, then one read by id) answers exactly what a full listing would, and never another session's facts or text after kills, re-creations, renames or a server restart.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTmuxServer, type TmuxTestServer } from '../../../../../test/src/helpers/tmux-server.js';
import { configSchema } from '../../config/schema.js';
import { whitelistReader } from '../../testing/deps.testkit.js';
import { createTmuxAdapter, type ControlModeTmuxAdapter } from './adapter.js';
import { HIDDEN_SESSION_NAME } from './control-client.js';

let server: TmuxTestServer;
let adapter: ControlModeTmuxAdapter;

const SIZE = { width: 80, height: 24 };
const config = configSchema.parse({ allowed_session_patterns: ['test-*'] });

/** A session whose screen says `marker` and then waits. */
const showing = (marker: string) => `bash --norc --noprofile -c 'echo ${marker}; exec sleep 3600'`;

async function expectSameAsListing(name: string): Promise<void> {
  const listed = (await adapter.listSessions()).find((s) => s.name === name) ?? null;
  expect(await adapter.findSession(name)).toEqual(listed);
}

/** The tail the read path returns for `name`, once the pane has printed something. */
async function tailOf(name: string): Promise<string> {
  const reader = whitelistReader(config, adapter);
  let text = '';
  await vi.waitFor(
    async () => {
      text = (await reader.tail(name, 5)).text;
      expect(text).toMatch(/marker-/);
    },
    { timeout: 60_000, interval: 50 },
  );
  return text;
}

beforeAll(async () => {
  server = await startTmuxServer();
  await server.newSession('test-one', showing('marker-one'), SIZE);
  await server.newSession('test-onetwo', showing('marker-onetwo'), SIZE);
  adapter = createTmuxAdapter({ socketName: server.socketName, configFile: '/dev/null' });
  expect(await adapter.waitUntilConnected(5_000)).toBe(true);
});

afterAll(async () => {
  await adapter?.close();
  await server?.kill();
});

describe('findSession', () => {
  it('returns the same facts as the listing, before and after the hint is warm', async () => {
    await expectSameAsListing('test-one');
    await expectSameAsListing('test-one');
    await expectSameAsListing('test-onetwo');
  });

  it('matches names exactly: no prefix, no glob, no hidden control session', async () => {
    await adapter.listSessions();
    expect(await adapter.findSession('test-on')).toBeNull();
    expect(await adapter.findSession('test-one*')).toBeNull();
    expect(await adapter.findSession('test-one\t')).toBeNull();
    expect(await adapter.findSession(HIDDEN_SESSION_NAME)).toBeNull();
    expect((await adapter.findSession('test-one'))?.name).toBe('test-one');
  });

  it('follows a session killed and created again under the same name', async () => {
    const before = await adapter.findSession('test-one');
    expect(await tailOf('test-one')).toContain('marker-one');
    await server.tmux(['kill-session', '-t', before!.sessionId]);
    expect(await adapter.findSession('test-one')).toBeNull();
    const again = await server.newSession('test-one', showing('marker-reborn'), SIZE);
    const after = await adapter.findSession('test-one');
    expect(after?.sessionId).toBe(again.sessionId);
    expect(after?.sessionId).not.toBe(before!.sessionId);
    const text = await tailOf('test-one');
    expect(text).toContain('marker-reborn');
    expect(text).not.toContain('marker-one\n');
  });

  it('follows renames, including a swap of two names, without a full listing in between', async () => {
    const a = await server.newSession('test-a', showing('marker-a'), SIZE);
    const b = await server.newSession('test-b', showing('marker-b'), SIZE);
    // Warm the hint, then swap the names behind the adapter's back in one tmux call.
    expect((await adapter.findSession('test-a'))?.sessionId).toBe(a.sessionId);
    expect((await adapter.findSession('test-b'))?.sessionId).toBe(b.sessionId);
    await server.tmux(['rename-session', '-t', a.sessionId, 'test-tmp', ';', 'rename-session', '-t', b.sessionId, 'test-a', ';', 'rename-session', '-t', a.sessionId, 'test-b']);
    expect((await adapter.findSession('test-a'))?.sessionId).toBe(b.sessionId);
    expect((await adapter.findSession('test-b'))?.sessionId).toBe(a.sessionId);
    expect(await tailOf('test-a')).toContain('marker-b');
    expect(await tailOf('test-b')).toContain('marker-a');
    await expectSameAsListing('test-a');
    await expectSameAsListing('test-tmp');
  });

  it('never serves a hint from before a tmux server restart', async () => {
    // An adapter that waits before reconnecting, so the test (not the adapter) starts the
    // next server on the socket.
    await adapter.close();
    adapter = createTmuxAdapter({ socketName: server.socketName, configFile: '/dev/null', reconnect: { initialDelayMs: 1_500, maxDelayMs: 1_500 } });
    expect(await adapter.waitUntilConnected(5_000)).toBe(true);
    expect(await tailOf('test-one')).toContain('marker-reborn');
    const old = (await adapter.findSession('test-one'))!;
    const oldPid = old.serverPid;
    await server.kill();
    await vi.waitFor(() => expect(adapter.state).toBe('disconnected'), { timeout: 60_000, interval: 10 });
    // The new server hands out ids from $0 again: with decoys created first, the old
    // name -> id hint for test-one names a decoy there.
    server = await startTmuxServer({ socketName: server.socketName });
    for (let i = 0; i <= Number(old.sessionId.slice(1)); i++) await server.newSession(`test-decoy-${i}`, showing(`marker-decoy-${i}`), SIZE);
    await server.newSession('test-one', showing('marker-new-server'), SIZE);
    await vi.waitFor(() => expect(adapter.state).toBe('connected'), { timeout: 60_000, interval: 10 });
    // Read before anything lists the new server's sessions.
    const text = await tailOf('test-one');
    expect(text).toContain('marker-new-server');
    expect(text).not.toContain('marker-decoy');
    expect((await adapter.findSession('test-one'))?.serverPid).not.toBe(oldPid);
    await expectSameAsListing('test-one');
    expect(await tailOf('test-decoy-0')).toContain('marker-decoy-0');
    expect(await adapter.findSession('test-onetwo')).toBeNull();
  });
});
