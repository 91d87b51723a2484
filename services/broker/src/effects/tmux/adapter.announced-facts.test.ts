// A session list that keeps the facts tmux announces (announced-facts.ts) still shows every change: each announced one made from outside, as a user's tmux command would, and the silent ones it asks for every time.
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { execa, type ResultPromise } from 'execa';
import { identifyGateKey, withIdentifyTurn } from '@terminal-mcp/broker/tmux-identify-gate';
import { startTmuxServer, type TmuxTestServer, type TmuxTestSession } from '../../../../../test/src/helpers/tmux-server.js';
import { createTmuxAdapter, type ControlModeTmuxAdapter } from './adapter.js';
import { HIDDEN_SESSION_NAME } from './hidden-session.js';
import type { ListedSession } from './types.js';

let server: TmuxTestServer;
let adapter: ControlModeTmuxAdapter;
let alpha: TmuxTestSession;
let beta: TmuxTestSession;

const SIZE = { width: 100, height: 30 };

/** What tmux itself says now, from a separate client: id -> name, created, windows. */
async function truth(): Promise<Map<string, { name: string; created: number; windows: number }>> {
  const out = await server.tmux(['list-sessions', '-F', '#{session_id}\t#{session_created}\t#{session_windows}\t#{session_name}']);
  const rows = new Map<string, { name: string; created: number; windows: number }>();
  for (const line of out.split('\n')) {
    const [id, created, windows, name] = line.split('\t');
    if (name !== undefined && name !== HIDDEN_SESSION_NAME) rows.set(id!, { name, created: Number(created), windows: Number(windows) });
  }
  return rows;
}

/** The listing as the announced facts show it, checked against tmux's own answer. */
async function listMatchingTruth(): Promise<ListedSession[]> {
  const listed = await adapter.listSummaries();
  const expected = await truth();
  expect(new Map(listed.map((s) => [s.sessionId, { name: s.name, created: s.created, windows: s.windows }]))).toEqual(expected);
  return listed;
}

const byId = (sessions: ListedSession[], id: string) => sessions.find((s) => s.sessionId === id);

beforeAll(async () => {
  server = await startTmuxServer();
  alpha = await server.newSession('alpha', 'bash --norc --noprofile', SIZE);
  beta = await server.newSession('beta', 'sleep 600', SIZE);
  adapter = createTmuxAdapter({ socketName: server.socketName, configFile: '/dev/null' });
  expect(await adapter.waitUntilConnected(10_000)).toBe(true);
});

afterAll(async () => {
  await adapter?.close();
  await server?.kill();
});

beforeEach(async () => {
  // Two listings: the second is served with the facts the first kept.
  await listMatchingTruth();
  await listMatchingTruth();
});

describe('announced facts kept between listings', () => {
  it('a rename shows at once, also one made while a listing is under way', async () => {
    await server.tmux(['rename-session', '-t', beta.sessionId, 'beta-2']);
    expect(byId(await listMatchingTruth(), beta.sessionId)?.name).toBe('beta-2');
    for (let i = 3; i < 13; i++) {
      await Promise.all([adapter.listSummaries(), server.tmux(['rename-session', '-t', beta.sessionId, `beta-${i}`])]);
      expect(byId(await listMatchingTruth(), beta.sessionId)?.name).toBe(`beta-${i}`);
    }
  });

  it('windows added, linked, killed and ended by their process are counted', async () => {
    await server.tmux(['new-window', '-d', '-t', beta.sessionId, 'sleep 600']);
    expect(byId(await listMatchingTruth(), beta.sessionId)?.windows).toBe(2);
    // The same window linked into a second session: both count it.
    const window = (await server.tmux(['display-message', '-p', '-t', `${beta.sessionId}:1`, '#{window_id}'])).trim();
    await server.tmux(['link-window', '-d', '-s', window, '-t', `${alpha.sessionId}:7`]);
    expect(byId(await listMatchingTruth(), alpha.sessionId)?.windows).toBe(2);
    await server.tmux(['unlink-window', '-t', `${alpha.sessionId}:7`]);
    expect(byId(await listMatchingTruth(), alpha.sessionId)?.windows).toBe(1);
    await server.tmux(['kill-window', '-t', window]);
    expect(byId(await listMatchingTruth(), beta.sessionId)?.windows).toBe(1);
    // A window whose only process exits closes by itself.
    await server.tmux(['new-window', '-d', '-t', beta.sessionId, 'read -r line; exit 0']);
    expect(byId(await listMatchingTruth(), beta.sessionId)?.windows).toBe(2);
    await server.tmux(['send-keys', '-t', `${beta.sessionId}:1`, 'go', 'Enter']);
    await vi.waitFor(async () => expect(byId(await listMatchingTruth(), beta.sessionId)?.windows).toBe(1), { timeout: 60_000, interval: 50 });
  });

  it('sessions created and killed appear and go', async () => {
    const gamma = await server.newSession('gamma', 'sleep 600', SIZE);
    expect(byId(await listMatchingTruth(), gamma.sessionId)?.name).toBe('gamma');
    await server.tmux(['kill-session', '-t', gamma.sessionId]);
    expect(byId(await listMatchingTruth(), gamma.sessionId)).toBeUndefined();
  });

  it('copy mode, the current command and attached clients, which tmux does not announce, are read every time', async () => {
    await server.tmux(['copy-mode', '-t', alpha.paneId]);
    expect(byId(await listMatchingTruth(), alpha.sessionId)?.activePane?.inMode).toBe(true);
    await server.tmux(['send-keys', '-t', alpha.paneId, '-X', 'cancel']);
    expect(byId(await listMatchingTruth(), alpha.sessionId)?.activePane?.inMode).toBe(false);

    await server.tmux(['send-keys', '-t', alpha.paneId, 'exec sleep 600', 'Enter']);
    await vi.waitFor(async () => expect(byId(await listMatchingTruth(), alpha.sessionId)?.activePane?.currentCommand).toBe('sleep'), { timeout: 60_000, interval: 50 });

    // A user's client attaches (a control client here: it needs no terminal) and leaves.
    const { client } = await attachClient(beta.sessionId);
    try {
      expect(byId(await listMatchingTruth(), beta.sessionId)?.attached).toBe(1);
    } finally {
      client.kill();
      await client.catch(() => undefined);
    }
    await vi.waitFor(async () => expect(byId(await listMatchingTruth(), beta.sessionId)?.attached).toBe(0), { timeout: 60_000, interval: 50 });
  });
});

/** `tmux -C attach-session -t id`, in the identify turn until tmux has identified it (its
 * first output), as every tmux client here starts (identify-gate.ts). */
async function attachClient(sessionId: string): Promise<{ client: ResultPromise }> {
  const env = { ...process.env };
  delete env.TMUX;
  delete env.TMUX_PANE;
  return withIdentifyTurn(identifyGateKey(server.socketName, env), async () => {
    const child = execa('tmux', ['-L', server.socketName, '-C', 'attach-session', '-t', sessionId], { env, extendEnv: false, stdin: 'pipe', buffer: false, reject: false });
    await new Promise<void>((resolve, reject) => {
      child.stdout!.once('data', () => resolve());
      child.once('exit', () => reject(new Error('the control client ended before tmux identified it')));
    });
    // Wrapped: the child is a promise too, and returning it would wait for its exit.
    return { client: child };
  });
}
