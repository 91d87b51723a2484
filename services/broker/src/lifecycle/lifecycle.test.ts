// Guards session lifecycle over a real private tmux server and real stores: each launch profile starts its own program (never a client's), a first prompt goes through the guarded input path, close and restart are identity-pinned dry runs unless confirmed and touch only profile-started sessions, restart links old and new in the registry, everything is audited, and a profile cannot be bent (unknown fields, cwd escapes through .. and symlinks, names with ; - #{} #()); recovery restarts a crashing program within its bound and stops a crash loop.
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BROKER_HEADERS, readAppErrorData } from '@terminal-mcp/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../../../../test/src/helpers/wait-for.js';
import { configSchema, type BrokerConfig } from '../config/schema.js';
import { contextFromRequest } from '../rpc/context.js';
import type { BrokerDeps } from '../rpc/deps.js';
import { ROLE_ROUTERS } from '../rpc/roles/index.js';
import { createCallerFactory } from '../rpc/trpc.js';
import { withConfig } from '../testing/deps.testkit.js';
import { startLiveTestBroker, type LiveTestBroker } from '../testing/live-broker.testkit.js';
import { listManagedSessions } from './managed-views.js';
import { startRecovery, type SessionRecovery } from './recovery.js';

let root: string;
let work: string;
let outside: string;
let broker: LiveTestBroker;
let deps: BrokerDeps;
let recovery: SessionRecovery;

const SHELL = ['env', 'PS1=$ ', 'HISTFILE=/dev/null', 'bash', '--norc', '--noprofile', '-i'];

function config(lifecycle: boolean): BrokerConfig {
  return configSchema.parse({
    permissions: { terminal_read: true, terminal_input: true, session_lifecycle: lifecycle },
    allowed_session_patterns: ['agent-*', 'shell-*', 'sleeper-*', 'crashy-*', 'flaky-*', 'other-*'],
    input_policy: { allowed_session_patterns: ['agent-*', 'shell-*', 'sleeper-*', 'other-*'] },
    session_lifecycle: { protected_sessions: ['shell-protected'] },
    launch_profiles: [
      { name: 'shell', command: SHELL, roots: [work], ready_command: 'bash', width: 100, height: 30 },
      { name: 'sleeper', command: ['sleep', '600'], roots: [work], name_pattern: 'sleeper-*' },
      { name: 'guarded', command: ['ssh', 'localhost'], roots: [work], name_pattern: 'agent-*' },
      // Exits at once until the marker exists, then stays: recovery brings it back once.
      { name: 'flaky', command: ['sh', '-c', `if [ -e ${join(root, 'flaky-ok')} ]; then exec sleep 600; fi; touch ${join(root, 'flaky-ok')}; exit 3`], roots: [work], recover: 'on_exit', max_restarts_per_hour: 3, backoff_seconds: 0 },
      // Always exits: recovery restarts it twice, then stops and says so.
      { name: 'crashy', command: ['sh', '-c', 'sleep 0.3; exit 7'], roots: [work], recover: 'on_exit', max_restarts_per_hour: 2, backoff_seconds: 0.1 },
    ],
  });
}

const gateway = (d: BrokerDeps = deps) => createCallerFactory(ROLE_ROUTERS.gateway)(contextFromRequest('gateway', d, { [BROKER_HEADERS.principal]: 'token' }));
const codeOf = async (p: Promise<unknown>) => {
  try {
    await p;
    return 'ok';
  } catch (err) {
    const app = readAppErrorData((err as { cause?: unknown }).cause) ?? readAppErrorData(err);
    // A schema refusal through createCaller is tRPC's BAD_REQUEST (the wire calls it INVALID_ARGUMENT).
    return app?.code ?? ((err as { code?: string }).code === 'BAD_REQUEST' ? 'INVALID_ARGUMENT' : `other:${(err as Error).message}`);
  }
};
const names = async () => (await broker.adapter.listSessions()).map((s) => s.name).sort();
const auditRows = (tool: string) => deps.input.audit.list({ limit: 200 }).filter((r) => r.tool === tool).sort((a, b) => a.id - b.id);

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'tmcp-lifecycle-'));
  work = join(root, 'work');
  outside = join(root, 'outside');
  mkdirSync(join(work, 'sub'), { recursive: true });
  mkdirSync(outside);
  symlinkSync(outside, join(work, 'escape'));
  broker = await startLiveTestBroker({ config: config(true), stateDir: join(root, 'state'), graceMs: 150 });
  deps = broker.deps;
  recovery = startRecovery(deps);
}, 60_000);

afterAll(async () => {
  recovery?.stop();
  await broker?.close();
  if (root) rmSync(root, { recursive: true, force: true });
});

describe('starting from a launch profile', () => {
  it('starts each profile with its own program, waits for it, and types the first prompt through the guarded input path', async () => {
    const shell = await gateway().lifecycle.start({ profile: 'shell', name: 'shell-1', cwd: join(work, 'sub'), prompt: 'echo started-by-$((6*7))' });
    expect(shell).toMatchObject({ result: 'STARTED', profile: 'shell', session: 'shell-1', cwd: join(work, 'sub'), foreground: 'bash' });
    expect(shell.prompt).toMatchObject({ result: 'SENT', error_code: null });
    await waitFor('the prompt ran', async () => (await broker.server.tmux(['capture-pane', '-p', '-t', `${shell.pane_id}`])).includes('started-by-42'), 30_000, 100);
    expect((await broker.server.tmux(['display-message', '-p', '-t', shell.pane_id!, '#{pane_current_path} #{window_width}x#{window_height}'])).trim()).toBe(`${join(work, 'sub')} 100x30`);
    // The start's row, then the prompt's own row (the input attempt's, with its text length).
    const rows = auditRows('terminal_session_start').filter((r) => r.sessionName === 'shell-1');
    expect(rows.map((r) => [r.decision, r.textLength !== null])).toEqual([
      ['SENT', false],
      ['SENT', true],
    ]);

    const sleeper = await gateway().lifecycle.start({ profile: 'sleeper' });
    expect(sleeper).toMatchObject({ result: 'STARTED', session: 'sleeper-1', cwd: work, foreground: 'sleep' });
    expect(await names()).toEqual(expect.arrayContaining(['shell-1', 'sleeper-1']));
  }, 60_000);

  it('is off unless permissions.session_lifecycle, and a dry run starts nothing', async () => {
    const before = await names();
    expect(await codeOf(gateway(withConfig(deps, config(false))).lifecycle.start({ profile: 'sleeper', name: 'sleeper-off' }))).toBe('LIFECYCLE_DISABLED');
    expect(await gateway().lifecycle.start({ profile: 'sleeper', name: 'sleeper-dry', dry_run: true })).toMatchObject({ result: 'DRY_RUN', session_id: null });
    expect(await names()).toEqual(before);
    expect(auditRows('terminal_session_start').find((r) => r.sessionName === 'sleeper-off')).toMatchObject({ decision: 'BLOCKED', errorCode: 'LIFECYCLE_DISABLED' });
  });

  it('cannot be bent into running something else or elsewhere', async () => {
    const marker = join(root, 'pwned');
    const before = await names();
    const attempts: [string, Record<string, unknown>, string][] = [
      ['a command line', { profile: 'sleeper', name: 'sleeper-x', command: ['touch', marker] }, 'other'],
      ['arguments', { profile: 'sleeper', name: 'sleeper-x', args: ['--', 'touch', marker] }, 'other'],
      ['an unknown profile', { profile: 'nope' }, 'PROFILE_NOT_FOUND'],
      ['a guarded program', { profile: 'guarded', name: 'agent-9' }, 'COMMAND_GUARDED'],
      ['cwd with ..', { profile: 'sleeper', name: 'sleeper-x', cwd: `${work}/../outside` }, 'LAUNCH_NOT_ALLOWED'],
      ['cwd through a symlink out of the root', { profile: 'sleeper', name: 'sleeper-x', cwd: join(work, 'escape') }, 'LAUNCH_NOT_ALLOWED'],
      ['cwd outside the roots', { profile: 'sleeper', name: 'sleeper-x', cwd: outside }, 'LAUNCH_NOT_ALLOWED'],
      ['a relative cwd', { profile: 'sleeper', name: 'sleeper-x', cwd: 'work' }, 'LAUNCH_NOT_ALLOWED'],
      ['cwd with a format', { profile: 'sleeper', name: 'sleeper-x', cwd: `${work}/#(touch ${marker})` }, 'LAUNCH_NOT_ALLOWED'],
      ['a name ending in ;', { profile: 'sleeper', name: 'sleeper-x;' }, 'LAUNCH_NOT_ALLOWED'],
      ['a name with ; and a command', { profile: 'sleeper', name: `sleeper-x; run-shell "touch ${marker}"` }, 'LAUNCH_NOT_ALLOWED'],
      ['a leading -', { profile: 'sleeper', name: '-dsleeper-x' }, 'LAUNCH_NOT_ALLOWED'],
      ['a format', { profile: 'sleeper', name: 'sleeper-#{pid}' }, 'LAUNCH_NOT_ALLOWED'],
      ['a shell format', { profile: 'sleeper', name: `sleeper-#(touch ${marker})` }, 'LAUNCH_NOT_ALLOWED'],
      ['a name outside the pattern', { profile: 'sleeper', name: 'other-1' }, 'LAUNCH_NOT_ALLOWED'],
      ['a protected name', { profile: 'shell', name: 'shell-protected' }, 'LAUNCH_NOT_ALLOWED'],
      ['a taken name', { profile: 'sleeper', name: 'sleeper-1' }, 'SESSION_EXISTS'],
    ];
    const found: string[] = [];
    for (const [what, input, want] of attempts) {
      const code = await codeOf(gateway().lifecycle.start(input as never));
      if (want === 'other' ? code !== 'INVALID_ARGUMENT' : code !== want) found.push(`${what}: ${code}`);
    }
    expect(found).toEqual([]);
    expect(await names()).toEqual(before);
    expect(existsSync(marker)).toBe(false);
  }, 60_000);
});

describe('closing and restarting', () => {
  it('closes only the session the caller saw, after a dry run, and only one a profile started', async () => {
    const started = await gateway().lifecycle.start({ profile: 'sleeper', name: 'sleeper-close' });
    const id = started.session_id!;
    expect(await gateway().lifecycle.close({ session: 'sleeper-close', expect_session_id: id })).toMatchObject({ result: 'DRY_RUN', profile: 'sleeper' });
    expect(await names()).toContain('sleeper-close');
    expect(await codeOf(gateway().lifecycle.close({ session: 'sleeper-close', expect_session_id: '$999', confirm: true }))).toBe('IDENTITY_CHANGED');
    expect(await names()).toContain('sleeper-close');
    expect(await gateway().lifecycle.close({ session: 'sleeper-close', expect_session_id: id, confirm: true })).toMatchObject({ result: 'CLOSED', session_id: id });
    expect(await names()).not.toContain('sleeper-close');
    expect(listManagedSessions(deps).find((m) => m.session === 'sleeper-close')).toMatchObject({ state: 'CLOSED' });

    // A session nobody's profile started stays, whatever the caller says.
    await broker.server.newSession('other-manual', 'sleep 600');
    const manual = (await broker.adapter.findSession('other-manual'))!;
    expect(await codeOf(gateway().lifecycle.close({ session: 'other-manual', expect_session_id: manual.sessionId, confirm: true }))).toBe('LAUNCH_NOT_ALLOWED');
    expect(await codeOf(gateway().lifecycle.restart({ session: 'other-manual', expect_session_id: manual.sessionId, confirm: true }))).toBe('LAUNCH_NOT_ALLOWED');
    expect(await names()).toContain('other-manual');
    expect(auditRows('terminal_session_close').map((r) => r.decision)).toEqual(['DRY_RUN', 'BLOCKED', 'SENT', 'BLOCKED']);
  }, 60_000);

  it('restarts with the same profile, name and directory under a new identity, linked in the registry', async () => {
    const first = await gateway().lifecycle.start({ profile: 'shell', name: 'shell-restart', cwd: join(work, 'sub') });
    const dry = await gateway().lifecycle.restart({ session: 'shell-restart', expect_session_id: first.session_id! });
    expect(dry).toMatchObject({ result: 'DRY_RUN', session_id: null });
    const again = await gateway().lifecycle.restart({ session: 'shell-restart', expect_session_id: first.session_id!, confirm: true });
    expect(again).toMatchObject({ result: 'RESTARTED', session: 'shell-restart', profile: 'shell', previous_session_id: first.session_id, foreground: 'bash' });
    expect(again.session_id).not.toBe(first.session_id);
    const live = (await broker.adapter.findSession('shell-restart'))!;
    expect(live.sessionId).toBe(again.session_id);
    const row = deps.lifecycle.store.byIdentity(live.serverPid, live.sessionId, live.created)!;
    expect(deps.lifecycle.store.byId(row.previousId!)).toMatchObject({ sessionId: first.session_id, state: 'REPLACED' });
    expect((await broker.server.tmux(['display-message', '-p', '-t', again.pane_id!, '#{pane_current_path}'])).trim()).toBe(join(work, 'sub'));
    // The old id is gone for good: a close pinned to it refuses.
    expect(await codeOf(gateway().lifecycle.close({ session: 'shell-restart', expect_session_id: first.session_id!, confirm: true }))).toBe('IDENTITY_CHANGED');
  }, 60_000);

  it('resizes a window within bounds', async () => {
    const s = await gateway().lifecycle.start({ profile: 'sleeper', name: 'sleeper-resize' });
    expect(await gateway().lifecycle.resize({ session: 'sleeper-resize', width: 90, height: 25 })).toMatchObject({ width: 90, height: 25 });
    expect((await broker.server.tmux(['display-message', '-p', '-t', s.pane_id!, '#{window_width}x#{window_height}'])).trim()).toBe('90x25');
    expect(await codeOf(gateway().lifecycle.resize({ session: 'sleeper-resize', width: 5000, height: 25 }))).toBe('INVALID_ARGUMENT');
    expect(await codeOf(gateway().lifecycle.resize({ session: 'sleeper-resize', width: 10, height: 25 }))).toBe('INVALID_ARGUMENT');
  }, 60_000);
});

describe('recovery', () => {
  it('restarts a program that exited, within its bound', async () => {
    await gateway().lifecycle.start({ profile: 'flaky', name: 'flaky-1' });
    const state = await waitFor(
      'flaky-1 recovered and running',
      async () => {
        const m = listManagedSessions(deps).find((x) => x.session === 'flaky-1');
        return m?.state === 'RUNNING' && m.restarts_last_hour === 1 ? m : undefined;
      },
      60_000,
      100,
    );
    expect(state).toMatchObject({ recover: 'on_exit', max_restarts_per_hour: 3 });
    expect(await names()).toContain('flaky-1');
    const events = deps.stores.supervisor.listEvents({ limit: 100 }).filter((e) => e.target === 'flaky-1').map((e) => e.event_type);
    expect(events).toEqual(expect.arrayContaining(['session_died', 'session_recovered']));
    expect(auditRows('session_recovery').filter((r) => r.sessionName === 'flaky-1').map((r) => r.decision)).toEqual(['SENT']);
  }, 90_000);

  it('stops a crash loop at max_restarts_per_hour and says so', async () => {
    await gateway().lifecycle.start({ profile: 'crashy', name: 'crashy-1' });
    const state = await waitFor(
      'crashy-1 in a crash loop',
      async () => {
        const m = listManagedSessions(deps).find((x) => x.session === 'crashy-1');
        return m?.state === 'CRASH_LOOP' ? m : undefined;
      },
      90_000,
      100,
    );
    expect(state.restarts_last_hour).toBe(2);
    expect(state.detail).toMatch(/crash loop/);
    const events = deps.stores.supervisor.listEvents({ limit: 200 }).filter((e) => e.target === 'crashy-1');
    expect(events.filter((e) => e.event_type === 'session_recovered')).toHaveLength(2);
    expect(events.filter((e) => e.event_type === 'crash_loop')).toHaveLength(1);
    expect(await names()).not.toContain('crashy-1');
  }, 120_000);
});
