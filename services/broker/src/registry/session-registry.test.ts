// Guards the session registry (real tmux, real registry.db): every session seen is recorded by identity, renames keep the row, a vanished session keeps its record and last redacted screen (readable sessions only) with KILLED or MISSING, an unreachable tmux changes nothing, and terminal_list_sessions(include_dead) shows it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { startTmuxServer, type TmuxTestServer } from '../../../../test/src/helpers/tmux-server.js';
import { configSchema } from '../config/schema.js';
import type { BrokerDeps } from '../rpc/deps.js';
import { testDeps, withConfig } from '../testing/deps.testkit.js';
import { createTmuxAdapter, type ControlModeTmuxAdapter } from '../effects/tmux/adapter.js';
import { createContextInner } from '../rpc/context.js';
import { gatewayRouter } from '../rpc/roles/gateway.js';
import { createCallerFactory } from '../rpc/trpc.js';
import { reconcileSessionRegistry } from './session-registry.js';

let server: TmuxTestServer;
let tmux: ControlModeTmuxAdapter;
let root: string;
let deps: BrokerDeps;

beforeAll(async () => {
  server = await startTmuxServer();
  tmux = createTmuxAdapter({ socketName: server.socketName, configFile: '/dev/null' });
  expect(await tmux.waitUntilConnected(10_000)).toBe(true);
});
afterAll(async () => {
  await tmux?.close();
  await server?.kill();
});
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'tmcp-registry-'));
  const config = configSchema.parse({ log_level: 'silent', allowed_session_patterns: ['agent-*'] });
  deps = testDeps({ config, tmux, stateDir: join(root, 'state'), info: { version: 'test', startedAt: new Date(), tmuxSocket: server.socketName } });
});
afterEach(() => {
  deps.stores.close();
  rmSync(root, { recursive: true, force: true });
});

const rows = () => deps.stores.registry.list();
const rowOf = (name: string) => rows().find((r) => r.name === name);
const gateway = () => createCallerFactory(gatewayRouter)(createContextInner({ role: 'gateway', deps }));

async function printing(name: string, mark: string) {
  await server.newSession(name, `echo ${mark}; exec sleep 3600`);
  await vi.waitFor(async () => expect(await server.tmux(['capture-pane', '-p', '-t', `=${name}:`])).toContain(mark), { timeout: 10_000, interval: 50 });
}

describe('session registry', { timeout: 60_000 }, () => {
  it('records sessions, follows a rename, and keeps a killed one with its last redacted screen', async () => {
    await printing('agent-reg1', 'REG-MARK-1 token=ghp_abcdefghijklmnopqrstuvwxyz0123456789');
    await printing('private-reg1', 'PRIVATE-MARK-1');
    // Keeps the server's pid visible in the list once the others are gone (KILLED, not MISSING).
    await printing('agent-keep', 'KEEP');
    expect(await reconcileSessionRegistry(deps, { screens: true })).toBe(true);
    const agent = rowOf('agent-reg1')!;
    expect(agent).toMatchObject({ status: 'ACTIVE' });
    expect(agent.lastScreen).toContain('REG-MARK-1');
    expect(agent.lastScreen).not.toContain('ghp_abcdefghijklmnopqrstuvwxyz0123456789');
    expect(rowOf('private-reg1')).toMatchObject({ status: 'ACTIVE', lastScreen: null });

    await server.tmux(['rename-session', '-t', agent.sessionId, 'agent-reg2']);
    await reconcileSessionRegistry(deps, { screens: false });
    expect(rowOf('agent-reg1')).toBeUndefined();
    expect(rowOf('agent-reg2')).toMatchObject({ id: agent.id, status: 'ACTIVE', firstSeen: agent.firstSeen });

    await server.tmux(['kill-session', '-t', agent.sessionId]);
    await server.tmux(['kill-session', '-t', '=private-reg1']);
    // A session list reconciles too.
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

  it('forgets the screen of a session that is no longer readable', async () => {
    await printing('agent-reg3', 'REG-MARK-3');
    await reconcileSessionRegistry(deps, { screens: true });
    expect(rowOf('agent-reg3')!.lastScreen).toContain('REG-MARK-3');
    deps = withConfig(deps, configSchema.parse({ log_level: 'silent', allowed_session_patterns: ['nothing-*'] }));
    await reconcileSessionRegistry(deps, { screens: true });
    expect(rowOf('agent-reg3')!.lastScreen).toBeNull();
    await server.tmux(['kill-session', '-t', '=agent-reg3']);
  });

  it('changes nothing while tmux cannot be listed', async () => {
    await printing('agent-reg4', 'REG-MARK-4');
    await reconcileSessionRegistry(deps, { screens: false });
    // An adapter that is closed answers every request with TMUX_UNAVAILABLE.
    const down = createTmuxAdapter({ socketName: server.socketName, configFile: '/dev/null' });
    expect(await down.waitUntilConnected(10_000)).toBe(true);
    await down.close();
    expect(await reconcileSessionRegistry({ ...deps, tmux: down }, { screens: false })).toBe(false);
    expect(rowOf('agent-reg4')).toMatchObject({ status: 'ACTIVE' });
    await server.tmux(['kill-session', '-t', '=agent-reg4']);
  });

  it('calls a session gone with its tmux server MISSING, and never revives a tombstone', () => {
    const store = deps.stores.registry;
    const live = { name: 'agent-old', serverPid: 111, sessionId: '$1', sessionCreated: 1000, currentCommand: 'bash' };
    store.reconcile([live], 111, 1);
    store.reconcile([], 222, 2);
    expect(rowOf('agent-old')).toMatchObject({ status: 'MISSING', statusChangedAt: 2 });
    store.tombstone((r) => r.map((x) => x.id), 'cli:test', 3);
    store.reconcile([live], 111, 4);
    expect(rowOf('agent-old')).toMatchObject({ status: 'DELETED', deletedBy: 'cli:test', deletedAt: 3 });
  });
});
