// Guards the session registry (real tmux, real registry.db): it follows tmux's own notifications with nobody listing sessions — a created session appears, a rename keeps the row, a killed one becomes KILLED with its last redacted screen (readable sessions only), a killed server makes its sessions MISSING, a burst of 50 sessions is coalesced (one pass in flight, no more passes than notifications), hostile names are recorded as tmux stores them, and an unreachable tmux changes nothing; each host's rows (this host's, a node's) change only on that host's passes.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { startTmuxServer, type TmuxTestServer, type TmuxTestSession } from '../../../../test/src/helpers/tmux-server.js';
import { configSchema } from '../config/schema.js';
import type { BrokerDeps } from '../rpc/deps.js';
import { testDeps, withConfig } from '../testing/deps.testkit.js';
import { createTmuxAdapter, type ControlModeTmuxAdapter } from '../effects/tmux/adapter.js';
import type { SessionFacts } from '../effects/tmux/types.js';
import { createContextInner } from '../rpc/context.js';
import { gatewayRouter } from '../rpc/roles/gateway.js';
import { createCallerFactory } from '../rpc/trpc.js';
import { createSessionRegistry, type RegistryDeps, type SessionRegistry } from './session-registry.js';

let server: TmuxTestServer;
let tmux: ControlModeTmuxAdapter;
let root: string;
let deps: BrokerDeps;
let registry: SessionRegistry | undefined;

// The timer (screens) never fires during a test: screens are recorded by calling its pass.
const CONFIG = { log_level: 'silent', allowed_session_patterns: ['agent-*'], session_lifecycle: { reconcile_interval_seconds: 3600 } };
const SLOW = { timeout: 60_000, interval: 50 };

beforeAll(async () => {
  server = await startTmuxServer();
  tmux = createTmuxAdapter({ socketName: server.socketName, configFile: '/dev/null' });
  expect(await tmux.waitUntilConnected(10_000)).toBe(true);
  // A user session for the whole file: the broker's control client never leaves this
  // server, so a session killed here is seen go while its server runs (KILLED).
  await server.newSession('agent-keep', 'exec sleep 3600');
});
afterAll(async () => {
  await tmux?.close();
  await server?.kill();
});
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'tmcp-registry-'));
  deps = testDeps({ config: configSchema.parse(CONFIG), tmux, stateDir: join(root, 'state'), info: { version: 'test', startedAt: new Date(), tmuxSocket: server.socketName } });
});
afterEach(async () => {
  await registry?.stop();
  registry = undefined;
  deps.stores.close();
  rmSync(root, { recursive: true, force: true });
});

const rows = (d: Pick<BrokerDeps, 'stores'> = deps) => d.stores.registry.list();
const rowOf = (name: string, d: Pick<BrokerDeps, 'stores'> = deps) => rows(d).find((r) => r.name === name);
const gateway = () => createCallerFactory(gatewayRouter)(createContextInner({ role: 'gateway', deps }));

/** Starts a registry on `d` and waits for its first pass. */
async function started(d: RegistryDeps): Promise<SessionRegistry> {
  registry = createSessionRegistry(d);
  registry.start();
  await registry.reconcile({ screens: false });
  return registry;
}

async function printing(name: string, mark: string) {
  const s = await server.newSession(name, `echo ${mark}; exec sleep 3600`);
  await vi.waitFor(async () => expect(await server.tmux(['capture-pane', '-p', '-t', s.paneId])).toContain(mark), SLOW);
  return s;
}

describe('session registry', { timeout: 180_000 }, () => {
  it('follows create, rename and kill from tmux notifications alone, keeping a readable session\'s last redacted screen', async () => {
    const reg = await started(deps);
    const agent = await printing('agent-reg1', 'REG-MARK-1 token=ghp_abcdefghijklmnopqrstuvwxyz0123456789');
    const priv = await printing('private-reg1', 'PRIVATE-MARK-1');
    await vi.waitFor(() => {
      expect(rowOf('agent-reg1')).toMatchObject({ status: 'ACTIVE', sessionId: agent.sessionId });
      expect(rowOf('private-reg1')).toMatchObject({ status: 'ACTIVE', sessionId: priv.sessionId });
    }, SLOW);
    const first = rowOf('agent-reg1')!;

    await server.tmux(['rename-session', '-t', agent.sessionId, 'agent-reg2']);
    await vi.waitFor(() => expect(rowOf('agent-reg2')).toMatchObject({ id: first.id, status: 'ACTIVE', firstSeen: first.firstSeen }), SLOW);
    expect(rowOf('agent-reg1')).toBeUndefined();

    // The timer's pass: the screens tmux does not announce.
    expect(await reg.reconcile({ screens: true })).toBe(true);
    expect(rowOf('agent-reg2')!.lastScreen).toContain('REG-MARK-1');
    expect(rowOf('agent-reg2')!.lastScreen).not.toContain('ghp_abcdefghijklmnopqrstuvwxyz0123456789');
    expect(rowOf('private-reg1')!.lastScreen).toBeNull();

    await server.tmux(['kill-session', '-t', agent.sessionId]);
    await server.tmux(['kill-session', '-t', priv.sessionId]);
    await vi.waitFor(() => {
      expect(rowOf('agent-reg2')).toMatchObject({ id: first.id, status: 'KILLED' });
      expect(rowOf('private-reg1')).toMatchObject({ status: 'KILLED', lastScreen: null });
    }, SLOW);
    expect(rowOf('agent-reg2')!.lastScreen).toContain('REG-MARK-1');

    // Listing is a read: the registry was already right, and include_dead shows it.
    const listed = await gateway().sessions.list({ include_dead: true });
    expect(listed.sessions.map((s) => s.name)).not.toContain('agent-reg2');
    const dead = listed.dead_sessions!.find((d) => d.name === 'agent-reg2')!;
    expect(dead).toMatchObject({ status: 'KILLED', session_id: agent.sessionId });
    expect(dead.last_screen).toContain('REG-MARK-1');
    expect(listed.dead_sessions!.find((d) => d.name === 'private-reg1')).toMatchObject({ status: 'KILLED', last_screen: null });
    // Handing out a remembered screen is a read: it is in the read audit (the other is not).
    deps.input.reads.flush();
    const reads = deps.stores.db('audit').prepare("SELECT session_name FROM read_audit WHERE tool = 'terminal_list_sessions'").all();
    expect(reads).toEqual([{ session_name: 'agent-reg2' }]);
    expect((await gateway().sessions.list({})).dead_sessions).toBeUndefined();
  });

  it('judges a gone session by one rule: a grant pinned to it shows its last screen as it shows its transcript, until revoked', async () => {
    const reg = await started(deps);
    const s = await printing('private-granted', 'GRANTED-MARK-1');
    const facts = (await tmux.findSession('private-granted'))!;
    deps.stores.grants.apply([{ kind: 'grant', sessionName: 'private-granted', identity: facts, input: false, expiresAt: null }], 'test', Date.now());
    await vi.waitFor(() => expect(rowOf('private-granted')).toMatchObject({ status: 'ACTIVE', sessionId: s.sessionId }), SLOW);
    expect(await reg.reconcile({ screens: true })).toBe(true);
    expect(rowOf('private-granted')!.lastScreen).toContain('GRANTED-MARK-1');
    await server.tmux(['kill-session', '-t', s.sessionId]);
    await vi.waitFor(() => expect(rowOf('private-granted')).toMatchObject({ status: 'KILLED' }), SLOW);
    // The grant pinned to that very session admits its remembered content (the transcript
    // rule); before, the registry alone asked the whitelist and hid the screen.
    const dead = async () => (await gateway().sessions.list({ include_dead: true })).dead_sessions!.find((d) => d.name === 'private-granted')!;
    expect((await dead()).last_screen).toContain('GRANTED-MARK-1');
    expect(deps.access.canReadGone('private-granted', facts)).toBe(true);
    deps.stores.grants.apply([{ kind: 'revoke', sessionName: 'private-granted' }], 'test', Date.now());
    expect((await dead()).last_screen).toBeNull();
    expect(deps.access.canReadGone('private-granted', facts)).toBe(false);
  });

  it('records hostile session names exactly as tmux stores them', async () => {
    await started(deps);
    const hostile = ['agent-;kill-server', '-agent-lead', 'agent-"q\'uote\'', 'agent-new\nline', 'agent-ünïcødé-😀-界', 'agent-$(id)`id`', 'agent-#{pid}'];
    const created: TmuxTestSession[] = [];
    for (const name of hostile) created.push(await server.newSession(name, 'exec sleep 3600'));
    // tmux escapes a newline when it stores a name (the adapter relies on it); everything
    // else is kept as given.
    expect(created.map((s) => s.name)).toEqual(hostile.map((n) => n.replace('\n', '\\n')));
    await vi.waitFor(() => {
      for (const s of created) expect(rows().find((r) => r.sessionId === s.sessionId)).toMatchObject({ name: s.name, status: 'ACTIVE' });
    }, SLOW);
    for (const s of created) await server.tmux(['kill-session', '-t', s.sessionId]);
    await vi.waitFor(() => {
      for (const s of created) expect(rows().find((r) => r.sessionId === s.sessionId)).toMatchObject({ name: s.name, status: 'KILLED' });
    }, SLOW);
  });

  it('coalesces a burst of 50 new sessions: one pass at a time, no more passes than notifications, right in the end', async () => {
    let inFlight = 0;
    let maxInFlight = 0;
    const observed: ControlModeTmuxAdapter = {
      ...tmux,
      listSessions: async () => {
        maxInFlight = Math.max(maxInFlight, ++inFlight);
        try {
          return await tmux.listSessions();
        } finally {
          inFlight--;
        }
      },
    };
    let passes = 0;
    let lastLive: readonly SessionFacts[] = [];
    await started({
      ...deps,
      tmux: observed,
      onReconciled: (live) => {
        passes++;
        lastLive = live;
      },
    });
    let notifications = 0;
    const off = tmux.onNotification((n) => {
      if (n.name === 'sessions-changed' || n.name === 'session-renamed') notifications++;
    });
    passes = 0;
    const names = Array.from({ length: 50 }, (_, i) => `agent-burst-${i}`);
    // One tmux invocation: 50 `new-session` back to back, 50 `%sessions-changed`.
    await server.tmux(names.flatMap((n, i) => [...(i > 0 ? [';'] : []), 'new-session', '-d', '-s', n, 'exec sleep 3600']));
    await vi.waitFor(() => {
      for (const n of names) expect(rowOf(n)).toMatchObject({ status: 'ACTIVE' });
      expect(lastLive.map((s) => s.name)).toEqual(expect.arrayContaining(names));
    }, SLOW);
    await vi.waitFor(() => expect(notifications).toBeGreaterThanOrEqual(50), SLOW);
    // Let the last queued pass (if any) finish before counting.
    await registry!.reconcile({ screens: false });
    off();
    expect(maxInFlight).toBe(1);
    // +1: the pass just asked for above.
    expect(passes).toBeLessThanOrEqual(notifications + 1);
    expect(passes).toBeGreaterThanOrEqual(1);

    await server.tmux(names.flatMap((n, i) => [...(i > 0 ? [';'] : []), 'kill-session', '-t', `=${n}`]));
    await vi.waitFor(() => {
      for (const n of names) expect(rowOf(n)).toMatchObject({ status: 'KILLED' });
    }, SLOW);
    expect(maxInFlight).toBe(1);
  });

  it('calls the sessions of a killed tmux server MISSING, and follows the next server on the same socket', async () => {
    const other = await startTmuxServer();
    const otherTmux = createTmuxAdapter({ socketName: other.socketName, configFile: '/dev/null', reconnect: { initialDelayMs: 50, maxDelayMs: 200 } });
    try {
      expect(await otherTmux.waitUntilConnected(10_000)).toBe(true);
      const s = await other.newSession('agent-doomed', 'exec sleep 3600');
      let lastLive: string[] = [];
      await started({ ...deps, tmux: otherTmux, onReconciled: (live) => void (lastLive = live.map((x) => x.name)) });
      await vi.waitFor(() => expect(rowOf('agent-doomed')).toMatchObject({ status: 'ACTIVE', sessionId: s.sessionId }), SLOW);
      expect(lastLive).toEqual(['agent-doomed']);
      const pid = rowOf('agent-doomed')!.serverPid;

      await other.kill();
      await vi.waitFor(() => expect(rowOf('agent-doomed')).toMatchObject({ status: 'MISSING', serverPid: pid }), SLOW);
      // Recorders hear that nothing is live any more.
      expect(lastLive).toEqual([]);

      // A new server on the same socket reuses ids ($0, $1...): a new row, the old one stays.
      const again = await startTmuxServer({ socketName: other.socketName });
      try {
        const s2 = await again.newSession('agent-doomed', 'exec sleep 3600');
        await vi.waitFor(() => {
          const doomed = rows().filter((r) => r.name === 'agent-doomed');
          expect(doomed).toHaveLength(2);
          expect(doomed.find((r) => r.serverPid === pid)).toMatchObject({ status: 'MISSING' });
          expect(doomed.find((r) => r.serverPid !== pid)).toMatchObject({ status: 'ACTIVE', sessionId: s2.sessionId });
        }, SLOW);
      } finally {
        await registry?.stop();
        await otherTmux.close();
        await again.kill();
      }
    } finally {
      await otherTmux.close();
      await other.kill();
    }
  });

  it('forgets the screen of a session that is no longer readable', async () => {
    const reg = await started(deps);
    await printing('agent-reg3', 'REG-MARK-3');
    await reg.reconcile({ screens: true });
    expect(rowOf('agent-reg3')!.lastScreen).toContain('REG-MARK-3');
    await reg.stop();
    deps = withConfig(deps, configSchema.parse({ ...CONFIG, allowed_session_patterns: ['nothing-*'] }));
    const narrowed = await started(deps);
    await narrowed.reconcile({ screens: true });
    expect(rowOf('agent-reg3')!.lastScreen).toBeNull();
    await server.tmux(['kill-session', '-t', '=agent-reg3']);
  });

  it('changes nothing while tmux cannot be listed', async () => {
    const reg = await started(deps);
    await printing('agent-reg4', 'REG-MARK-4');
    await vi.waitFor(() => expect(rowOf('agent-reg4')).toMatchObject({ status: 'ACTIVE' }), SLOW);
    await reg.stop();
    // An adapter that is closed answers every request with TMUX_UNAVAILABLE.
    const down = createTmuxAdapter({ socketName: server.socketName, configFile: '/dev/null' });
    expect(await down.waitUntilConnected(10_000)).toBe(true);
    await down.close();
    const blind = await started({ ...deps, tmux: down });
    expect(await blind.reconcile({ screens: true })).toBe(false);
    expect(rowOf('agent-reg4')).toMatchObject({ status: 'ACTIVE' });
    await server.tmux(['kill-session', '-t', '=agent-reg4']);
  });

  it('calls a session gone with its tmux server MISSING, and never revives a tombstone', () => {
    const store = deps.stores.registry;
    const live = { name: 'agent-old', serverPid: 111, sessionId: '$1', sessionCreated: 1000, currentCommand: 'bash' };
    store.reconcile(null, [live], 111, 1);
    store.reconcile(null, [], 222, 2);
    expect(rowOf('agent-old')).toMatchObject({ status: 'MISSING', statusChangedAt: 2 });
    store.tombstone((r) => r.map((x) => x.id), 'cli:test', 3);
    store.reconcile(null, [live], 111, 4);
    expect(rowOf('agent-old')).toMatchObject({ status: 'DELETED', deletedBy: 'cli:test', deletedAt: 3 });
  });

  it("keeps each host's rows to its own passes: a node's pass never touches this host's or another node's", () => {
    const store = deps.stores.registry;
    // One identity on three hosts (pids can coincide across machines): three rows.
    const same = { name: 'agent-x', serverPid: 111, sessionId: '$1', sessionCreated: 1000, currentCommand: 'bash' };
    store.reconcile(null, [same], 111, 1);
    store.reconcile('gpu', [same], 111, 1);
    store.reconcile('cpu', [same], 111, 1);
    const of = (node: string | null) => rows().find((r) => r.node === node && r.name === 'agent-x');
    expect(new Set([of(null)?.id, of('gpu')?.id, of('cpu')?.id]).size).toBe(3);
    // gpu's server lists nothing: only gpu's row is gone (KILLED: the same server says so).
    store.reconcile('gpu', [], 111, 2);
    expect(of('gpu')).toMatchObject({ status: 'KILLED', statusChangedAt: 2 });
    expect(of(null)).toMatchObject({ status: 'ACTIVE' });
    expect(of('cpu')).toMatchObject({ status: 'ACTIVE' });
    // cpu's tmux server is gone (no pid): MISSING, and this host's row stays.
    store.reconcile('cpu', [], null, 3);
    expect(of('cpu')).toMatchObject({ status: 'MISSING' });
    expect(of(null)).toMatchObject({ status: 'ACTIVE' });
    // This host's pass does not revive or touch a node's row either.
    store.reconcile(null, [], 111, 4);
    expect(of(null)).toMatchObject({ status: 'KILLED' });
    expect(of('gpu')).toMatchObject({ status: 'KILLED', statusChangedAt: 2 });
    // Notes go to the named host's row.
    expect(store.annotate('gpu', 'agent-x', { notes: 'gpu run' })).toMatchObject({ node: 'gpu', notes: 'gpu run' });
    expect(of(null)?.notes).toBeNull();
  });
});
