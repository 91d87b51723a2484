// Guards bindings: created only for existing readable non-sensitive sessions, remapped only with replace, input off unless asked, pinned to the session's identity (recreated = IDENTITY_CHANGED until rebound, vanished = MISSING and kept), reads go to the pinned pane.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BINDING_LIMITS, readAppErrorData } from '@terminal-mcp/contract';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTmuxServer, type TmuxTestServer } from '../../../../test/src/helpers/tmux-server.js';
import { configSchema } from '../config/schema.js';
import type { BrokerDeps } from '../rpc/deps.js';
import { createTmuxAdapter, type ControlModeTmuxAdapter } from '../effects/tmux/adapter.js';
import { createContextInner } from '../rpc/context.js';
import { gatewayRouter } from '../rpc/roles/gateway.js';
import { createCallerFactory } from '../rpc/trpc.js';
import { recoverInterruptedInput } from './services.js';
import { testDeps } from '../testing/deps.testkit.js';

const CONFIG = configSchema.parse({
  permissions: { terminal_read: true, terminal_input: true },
  allowed_session_patterns: ['agent-*', 'root-exact'],
  input_policy: { allowed_session_patterns: ['agent-*', 'root-exact'] },
});

let tmux: TmuxTestServer;
let adapter: ControlModeTmuxAdapter;
let root: string;
let deps: BrokerDeps;

beforeAll(async () => {
  tmux = await startTmuxServer();
  adapter = createTmuxAdapter({ socketName: tmux.socketName, configFile: '/dev/null' });
  expect(await adapter.waitUntilConnected(10_000)).toBe(true);
  root = mkdtempSync(join(tmpdir(), 'tmcp-bind-'));
  deps = testDeps({ config: CONFIG, tmux: adapter, stateDir: join(root, 'state'), log: pino({ level: 'silent' }), info: { version: 'test', startedAt: new Date(), tmuxSocket: tmux.socketName } });
  recoverInterruptedInput(deps);
});

afterAll(async () => {
  await adapter?.close();
  deps?.stores.close();
  await tmux?.kill();
  if (root) rmSync(root, { recursive: true, force: true });
});

const gw = () => createCallerFactory(gatewayRouter)(createContextInner({ role: 'gateway', deps, actor: 'gateway:bind-test' }));

async function codeOf(p: Promise<unknown>): Promise<string | undefined> {
  try {
    await p;
  } catch (err) {
    const app = readAppErrorData((err as { cause?: unknown }).cause) ?? readAppErrorData(err);
    // In process, a schema failure is a plain BAD_REQUEST; the wire formatter names it INVALID_ARGUMENT.
    return app?.code ?? ((err as { code?: string }).code === 'BAD_REQUEST' ? 'INVALID_ARGUMENT' : undefined);
  }
  throw new Error('expected a refusal');
}

async function session(name: string, mark: string) {
  const s = await tmux.newSession(name, `echo ${mark}; exec sleep 3600`, { width: 80, height: 20 });
  await vi.waitFor(async () => expect(await tmux.tmux(['capture-pane', '-p', '-t', s.paneId])).toContain(mark), { timeout: 60_000 });
  // The mark is printed before `exec sleep`: until the exec, the pane's command is still the shell.
  await vi.waitFor(async () => expect(await tmux.tmux(['display-message', '-p', '-t', s.paneId, '#{pane_current_command}'])).toBe('sleep'), { timeout: 60_000 });
  return s;
}

describe('bindings', () => {
  it('binds an existing readable session: read-enabled, input off, pinned to its identity', async () => {
    const s = await session('agent-one', 'mark-one');
    const bound = await gw().bindings.bind({ binding: 'one', session: 'agent-one' });
    expect(bound).toMatchObject({ outcome: 'CREATED', binding: 'one', session: 'agent-one', session_id: s.sessionId, pane_id: s.paneId, input_enabled: false, state: 'OK', updated_by: 'gateway:bind-test' });
    expect(await gw().bindings.get({ binding: 'one' })).toMatchObject({ state: 'OK' });
    expect((await gw().bindings.tail({ binding: 'one' })).text).toContain('mark-one');
    expect(await gw().bindings.status({ binding: 'one' })).toMatchObject({ binding: 'one', session: 'agent-one', current_command: 'sleep' });
    expect((await gw().bindings.list({})).bindings.map((b) => b.binding)).toContain('one');
  });

  it('is idempotent for the same session; input_enabled changes only when given', async () => {
    await session('agent-two', 'mark-two');
    expect((await gw().bindings.bind({ binding: 'two', session: 'agent-two' })).outcome).toBe('CREATED');
    expect((await gw().bindings.bind({ binding: 'two', session: 'agent-two' })).outcome).toBe('UNCHANGED');
    expect(await gw().bindings.bind({ binding: 'two', session: 'agent-two', input_enabled: true })).toMatchObject({ outcome: 'UPDATED', input_enabled: true });
    expect(await gw().bindings.bind({ binding: 'two', session: 'agent-two' })).toMatchObject({ outcome: 'UNCHANGED', input_enabled: true });
  });

  it('remaps only with replace: true, which resets input to disabled', async () => {
    await session('agent-three', 'mark-three');
    await session('agent-four', 'mark-four');
    await gw().bindings.bind({ binding: 'three', session: 'agent-three', input_enabled: true });
    expect(await codeOf(gw().bindings.bind({ binding: 'three', session: 'agent-four' }))).toBe('BINDING_EXISTS');
    expect((await gw().bindings.get({ binding: 'three' })).session).toBe('agent-three');
    expect(await gw().bindings.bind({ binding: 'three', session: 'agent-four', replace: true })).toMatchObject({ outcome: 'REPLACED', session: 'agent-four', input_enabled: false });
    expect((await gw().bindings.tail({ binding: 'three' })).text).toContain('mark-four');
  });

  it('refuses sensitive, unreadable, missing sessions and bad names', async () => {
    await session('root-exact', 'mark-root');
    // Readable (listed literally) but sensitive: never bindable.
    expect((await gw().sessions.tail({ session: 'root-exact' })).text).toContain('mark-root');
    expect(await codeOf(gw().bindings.bind({ binding: 'r', session: 'root-exact' }))).toBe('FORBIDDEN');
    await session('private-x', 'mark-private');
    expect(await codeOf(gw().bindings.bind({ binding: 'p', session: 'private-x' }))).toBe('SESSION_NOT_ALLOWED');
    expect(await codeOf(gw().bindings.bind({ binding: 'm', session: 'agent-missing' }))).toBe('SESSION_NOT_FOUND');
    for (const binding of ['Upper', 'has space', '', 'x'.repeat(65), 'semi;colon']) {
      expect(await codeOf(gw().bindings.bind({ binding, session: 'agent-one' }))).toBe('INVALID_ARGUMENT');
    }
  });

  it('a vanished session is MISSING and the binding is kept; a recreated one is IDENTITY_CHANGED until rebound', async () => {
    const first = await session('agent-five', 'mark-five-old');
    await gw().bindings.bind({ binding: 'five', session: 'agent-five', input_enabled: true });
    await tmux.tmux(['kill-session', '-t', first.sessionId]);
    expect(await gw().bindings.get({ binding: 'five' })).toMatchObject({ state: 'MISSING' });
    expect(await codeOf(gw().bindings.tail({ binding: 'five' }))).toBe('SESSION_NOT_FOUND');
    expect((await gw().bindings.list({})).bindings.find((b) => b.binding === 'five')?.state).toBe('MISSING');

    await session('agent-five', 'mark-five-new');
    expect(await gw().bindings.get({ binding: 'five' })).toMatchObject({ state: 'IDENTITY_CHANGED', session_id: first.sessionId });
    expect(await codeOf(gw().bindings.tail({ binding: 'five' }))).toBe('IDENTITY_CHANGED');
    expect(await codeOf(gw().bindings.status({ binding: 'five' }))).toBe('IDENTITY_CHANGED');
    expect(await codeOf(gw().input.sendBound({ binding: 'five', text: 'x' }))).toBe('IDENTITY_CHANGED');
    expect((await gw().audit.listInput({ binding: 'five', limit: 1 })).entries[0]).toMatchObject({ decision: 'BLOCKED', error_code: 'IDENTITY_CHANGED' });
    expect((await gw().input.sendTask({ binding: 'five', text: 'x' })).error_code).toBe('IDENTITY_CHANGED');
    expect(await codeOf(gw().bindings.bind({ binding: 'five', session: 'agent-five' }))).toBe('BINDING_EXISTS');

    expect(await gw().bindings.bind({ binding: 'five', session: 'agent-five', replace: true })).toMatchObject({ outcome: 'REPLACED', state: 'OK' });
    expect((await gw().bindings.tail({ binding: 'five' })).text).toContain('mark-five-new');
  });

  it('reads the pinned pane even when another pane of the session becomes active', async () => {
    const s = await session('agent-six', 'mark-six');
    await gw().bindings.bind({ binding: 'six', session: 'agent-six' });
    await tmux.tmux(['split-window', '-t', s.paneId, 'echo other-pane; exec sleep 3600']);
    await vi.waitFor(async () => expect((await gw().sessions.tail({ session: 'agent-six' })).text).toContain('other-pane'), { timeout: 60_000 });
    expect(await gw().bindings.get({ binding: 'six' })).toMatchObject({ state: 'OK', pane_id: s.paneId });
    const tail = await gw().bindings.tail({ binding: 'six' });
    expect(tail).toMatchObject({ pane_id: s.paneId });
    expect(tail.text).toContain('mark-six');
    expect(tail.text).not.toContain('other-pane');
  });

  it('unbinds', async () => {
    await session('agent-seven', 'mark-seven');
    await gw().bindings.bind({ binding: 'seven', session: 'agent-seven' });
    expect(await gw().bindings.unbind({ binding: 'seven' })).toEqual({ binding: 'seven', removed: true });
    expect(await codeOf(gw().bindings.unbind({ binding: 'seven' }))).toBe('BINDING_NOT_FOUND');
    expect(await codeOf(gw().bindings.get({ binding: 'seven' }))).toBe('BINDING_NOT_FOUND');
    expect(await codeOf(gw().bindings.tail({ binding: 'seven' }))).toBe('BINDING_NOT_FOUND');
  });
});

describe('bindings per client', () => {
  const as = (actor: string) => createCallerFactory(gatewayRouter)(createContextInner({ role: 'gateway', deps, actor }));

  it(`caps one client at ${BINDING_LIMITS.maxPerActor} bindings without touching another's`, { timeout: 180_000 }, async () => {
    await session('agent-cap', 'mark-cap');
    await session('agent-cap-2', 'mark-cap-2');
    const filler = as('gateway:filler');
    for (let i = 0; i < BINDING_LIMITS.maxPerActor; i++) await filler.bindings.bind({ binding: `cap-${i}`, session: 'agent-cap' });

    // The attack: one more name, or taking over another client's binding, is refused and writes nothing.
    expect(await codeOf(filler.bindings.bind({ binding: 'cap-one-more', session: 'agent-cap' }))).toBe('BINDING_LIMIT_REACHED');
    expect(await codeOf(filler.bindings.get({ binding: 'cap-one-more' }))).toBe('BINDING_NOT_FOUND');
    await as('gateway:other').bindings.bind({ binding: 'other-cap', session: 'agent-cap' });
    expect(await codeOf(filler.bindings.bind({ binding: 'other-cap', session: 'agent-cap-2', replace: true }))).toBe('BINDING_LIMIT_REACHED');
    expect(await filler.bindings.get({ binding: 'other-cap' })).toMatchObject({ session: 'agent-cap', updated_by: 'gateway:other' });

    // Its own bindings still remap, and unbinding frees a slot.
    expect((await filler.bindings.bind({ binding: 'cap-0', session: 'agent-cap-2', replace: true })).outcome).toBe('REPLACED');
    await filler.bindings.unbind({ binding: 'cap-1' });
    expect((await filler.bindings.bind({ binding: 'cap-one-more', session: 'agent-cap' })).outcome).toBe('CREATED');
    // Another client is not affected by the filler's count.
    expect((await as('gateway:other').bindings.bind({ binding: 'other-cap-2', session: 'agent-cap' })).outcome).toBe('CREATED');
  });
});
