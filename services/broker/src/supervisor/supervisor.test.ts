// The supervisor end to end on a real tmux server and real stores: events recorded on pane output (a [y/N] prompt, a traceback, a completion marker) and on quiet time (a pane that really goes idle); same-failure stop; the read gate; no secret in supervisor.db; v2 racing claims, review, a send that happens once, a password prompt that blocks the policy; the verifier refusing a dirty worktree, running a failing test, and blocking an autonomous watch without a policy.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readAppErrorData, type SupervisorEvent } from '@terminal-mcp/contract';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTmuxServer, type TmuxTestServer } from '../../../../test/src/helpers/tmux-server.js';
import { GENEROUS_WAIT_MS, waitFor } from '../../../../test/src/helpers/wait-for.js';
import { configSchema } from '../config/schema.js';
import type { BrokerDeps } from '../rpc/deps.js';
import { testDeps } from '../testing/deps.testkit.js';
import { createTmuxAdapter, type ControlModeTmuxAdapter } from '../effects/tmux/adapter.js';
import { createPaneWatcher, type PaneWatcher } from '../effects/tmux/pane-watch.js';
import { createContextInner } from '../rpc/context.js';
import { gatewayRouter } from '../rpc/roles/gateway.js';
import { createCallerFactory } from '../rpc/trpc.js';

const SECRET = 'sk-ant-api03-Zq8sV2mXw4Lp9Rt6Yc1Nb7Kd3Hf5Jg0QeUa';

/** The verifier profiles' worktrees live here (made before the config that names them). */
const root = mkdtempSync(join(tmpdir(), 'tmcp-sup-'));

const CONFIG = configSchema.parse({
  permissions: { terminal_read: true, terminal_input: true },
  allowed_session_patterns: ['agent-*'],
  input_policy: { allowed_session_patterns: ['agent-*'] },
  supervisor: {
    enabled: true,
    v2_enabled: true,
    poll_interval_seconds: 3600,
    idle_threshold_seconds: 2,
    max_iterations: 1000,
    same_failure_limit: 2,
    verifier_profiles: [
      { id: 'dirty', worktree: join(root, 'dirty') },
      { id: 'failing', worktree: join(root, 'failing'), test_command: ['python3', '-c', 'import sys; sys.exit(3)'] },
      { id: 'passing', worktree: join(root, 'passing'), test_command: ['git', '--version'] },
    ],
  },
});

let tmux: TmuxTestServer;
let adapter: ControlModeTmuxAdapter;
let paneWatch: PaneWatcher;
let deps: BrokerDeps;

beforeAll(async () => {
  tmux = await startTmuxServer();
  adapter = createTmuxAdapter({ socketName: tmux.socketName, configFile: '/dev/null' });
  expect(await adapter.waitUntilConnected(10_000)).toBe(true);
  paneWatch = createPaneWatcher({ socketName: tmux.socketName, graceMs: 150 });
  deps = testDeps({
    config: CONFIG,
    tmux: adapter,
    stateDir: join(root, 'state'),
    info: { version: 'test', startedAt: new Date(), tmuxSocket: tmux.socketName },
    paneWatch,
  });
  // The broker's own engine, started as start-broker.ts starts it.
  deps.supervisor.start();
});

afterAll(async () => {
  deps?.supervisor.stop();
  await paneWatch?.close();
  await adapter?.close();
  deps?.stores.close();
  await tmux?.kill();
  if (root) rmSync(root, { recursive: true, force: true });
});

const gw = (actor = 'gateway:test') => createCallerFactory(gatewayRouter)(createContextInner({ role: 'gateway', deps, actor }));

async function codeOf(p: Promise<unknown>): Promise<string | undefined> {
  try {
    await p;
  } catch (err) {
    return (readAppErrorData((err as { cause?: unknown }).cause) ?? readAppErrorData(err))?.code;
  }
  return 'no error';
}

/** A session running `script` in bash, then sleeping, so the screen stays. */
async function session(name: string, script: string): Promise<void> {
  await tmux.newSession(name, `bash --norc --noprofile -c '${script}; sleep 600'`, { width: 100, height: 20 });
}

/** Lets a session started with `read go; …` go on: its marker is printed only once the
 * watch is in place, however slow the machine (a marker already on screen when the watch
 * starts is history, not news). */
async function release(name: string): Promise<void> {
  await tmux.tmux(['send-keys', '-t', `=${name}:`, 'Enter']);
}

async function eventFor(key: string, type: string, state?: string): Promise<SupervisorEvent> {
  let found: SupervisorEvent | undefined;
  await vi.waitFor(
    async () => {
      const { events } = await gw().supervisor.listEvents({ watch_key: key });
      found = events.find((e) => e.event_type === type && (state === undefined || e.state === state));
      expect(found, `${type} for ${key}`).toBeDefined();
    },
    { timeout: GENEROUS_WAIT_MS, interval: 100 },
  );
  return found!;
}

describe('v1: events from pane output and quiet time', () => {
  it('records attention_required when a session prompts [y/N], without any poll', async () => {
    await session('agent-prompt', 'sleep 1; read -p "Deploy to prod? [y/N] " a; echo "answer=$a"');
    const w = await gw().supervisor.watch({ session: 'agent-prompt' });
    expect(w).toMatchObject({ watch_key: 'session:agent-prompt', enabled: true, policy_mode: 'observe_only' });
    const e = await eventFor('session:agent-prompt', 'attention_required');
    expect(e).toMatchObject({ schema_version: 1, state: 'WAITING_INPUT', kind: 'session', target: 'agent-prompt', acknowledged_at: null });
    expect(e.reason).toContain('[y/N]');
    expect(e.output_preview).toContain('Deploy to prod? [y/N]');
    // Deduplicated: the same prompt is not re-alerted by further passes.
    await gw().supervisor.runOnce({});
    await gw().supervisor.runOnce({});
    const again = await gw().supervisor.listEvents({ watch_key: 'session:agent-prompt' });
    expect(again.events.filter((x) => x.event_type === 'attention_required')).toHaveLength(1);
    expect(await gw().supervisor.ackEvent({ event_id: e.id })).toMatchObject({ event_id: e.id });
  });

  it('records error_detected for a traceback, then stops the watch after the same error repeats', async () => {
    // The whole traceback is on the screen before the watch starts (its first look runs on
    // subscribe). Printing it after the watch raced: bash's stdout is line-buffered and the
    // pty hands tmux each line apart, so a pass between two lines saw `Traceback` without
    // the `KeyError: 42` line under it (a clean-clone CI run at 13d45b6).
    await session('agent-trace', 'python3 -c "raise KeyError(42)"');
    await waitFor('the traceback on the screen', async () => (await tmux.tmux(['capture-pane', '-p', '-t', '=agent-trace:'])).includes('KeyError: 42'), 20_000, 100);
    await gw().supervisor.watch({ session: 'agent-trace' });
    const e = await eventFor('session:agent-trace', 'error_detected');
    expect(e.state).toBe('ERROR');
    expect(e.reason).toContain('KeyError: 42');
    await gw().supervisor.runOnce({});
    await gw().supervisor.runOnce({});
    const stalled = await eventFor('session:agent-trace', 'stalled');
    expect(stalled.reason).toContain('same_failure_limit 2');
    const { watches } = await gw().supervisor.listWatches({});
    expect(watches.find((w) => w.watch_key === 'session:agent-trace')).toMatchObject({ enabled: false });
  });

  it('records completed for an explicit completion marker, not for the command that prints it', async () => {
    await session('agent-done', 'read go; echo TERMINAL_MCP_DONE');
    await gw().supervisor.watch({ session: 'agent-done' });
    await release('agent-done');
    expect(await eventFor('session:agent-done', 'completed')).toMatchObject({ state: 'DONE' });
  });

  it('turns a pane that really goes quiet IDLE after idle_threshold_seconds, woken by its own timer', async () => {
    await session('agent-quiet', 'echo working on it');
    await gw().supervisor.watch({ session: 'agent-quiet' });
    const e = await eventFor('session:agent-quiet', 'state_changed', 'IDLE');
    expect(e.reason).toContain('idle_threshold_seconds 2');
  });

  it('blocks for events and wakes when one is recorded', async () => {
    const after = (await gw().supervisor.listEvents({ limit: 1 })).events[0]?.id ?? 0;
    const waiting = gw().supervisor.waitEvents({ after_id: after, timeout_s: 20 });
    await session('agent-later', 'sleep 1; read -p "Continue? (y/n) " a');
    await gw().supervisor.watch({ session: 'agent-later' });
    const got = await waiting;
    expect(got.state).toBe('EVENTS');
    expect(got.events.length).toBeGreaterThan(0);
    expect(await gw().supervisor.waitEvents({ after_id: got.next_after_id + 1000, timeout_s: 0 })).toMatchObject({ state: 'PENDING', events: [] });
  });

  it('never watches a session the caller cannot read (the read gate\'s own refusals)', async () => {
    await tmux.newSession('private-notes', 'sleep 600');
    expect(await codeOf(gw().supervisor.watch({ session: 'private-notes' }))).toBe('SESSION_NOT_ALLOWED');
    expect(await codeOf(gw().supervisor.watch({ session: 'agent-nothing' }))).toBe('SESSION_NOT_FOUND');
    const { watches } = await gw().supervisor.listWatches({});
    expect(watches.map((w) => w.target)).not.toContain('private-notes');
    await expect(gw().supervisor.watch({ session: 'agent-x', binding: 'b' })).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    expect(await codeOf(gw().supervisor.unwatch({ session: 'agent-none' }))).toBe('WATCH_NOT_FOUND');
  });

  it('stops a watch whose session goes away, with watch_target_missing', async () => {
    await session('agent-gone', 'echo here');
    await gw().supervisor.watch({ session: 'agent-gone' });
    await tmux.tmux(['kill-session', '-t', 'agent-gone']);
    await gw().supervisor.runOnce({});
    const e = await eventFor('session:agent-gone', 'watch_target_missing');
    expect(e.reason).toContain('SESSION_NOT_FOUND');
    const { watches } = await gw().supervisor.listWatches({});
    expect(watches.find((w) => w.watch_key === 'session:agent-gone')).toMatchObject({ enabled: false });
  });

  it('watches through a binding, and stops when the bound session is replaced', async () => {
    await session('agent-bound', 'sleep 1; read -p "Proceed? (y/n) " a');
    await gw().bindings.bind({ binding: 'sup-b', session: 'agent-bound' });
    expect(await gw().supervisor.watch({ binding: 'sup-b' })).toMatchObject({ watch_key: 'binding:sup-b', kind: 'binding' });
    expect(await eventFor('binding:sup-b', 'attention_required')).toMatchObject({ target: 'sup-b', state: 'WAITING_INPUT' });
    await tmux.tmux(['kill-session', '-t', 'agent-bound']);
    await session('agent-bound', 'echo impostor');
    await gw().supervisor.runOnce({});
    // Gone first (the watcher noticed the kill), or replaced: either way the watch stops.
    expect((await eventFor('binding:sup-b', 'watch_target_missing')).reason).toMatch(/SESSION_NOT_FOUND|IDENTITY_CHANGED/);
  });

  it('reads the pane a binding pinned, not the one made active after a split (the review\'s %5/%9 probe)', async () => {
    await session('agent-pinned', 'sleep 1; read -p "Pinned pane? [y/N] " a');
    await gw().bindings.bind({ binding: 'sup-pin', session: 'agent-pinned' });
    const pinnedPane = deps.stores.bindings.get('sup-pin')!.paneId;
    // A second pane, made active: the session's active pane is no longer the pinned one.
    await tmux.tmux(['split-window', '-t', '=agent-pinned:', `bash --norc --noprofile -c 'read -p "Other pane? [y/N] " a; sleep 600'`]);
    const active = (await tmux.tmux(['display-message', '-p', '-t', '=agent-pinned:', '#{pane_id}'])).trim();
    expect(active).not.toBe(pinnedPane);
    await gw().supervisor.watch({ binding: 'sup-pin' });
    const e = await eventFor('binding:sup-pin', 'attention_required');
    expect(e.output_preview).toContain('Pinned pane? [y/N]');
    expect(e.output_preview).not.toContain('Other pane');
    // The supervisor's read is in the read audit, as the pinned pane, once (not once per look).
    await gw().supervisor.runOnce({});
    deps.input.reads.flush();
    const reads = deps.stores.db('audit').prepare("SELECT role, actor, pane_id FROM read_audit WHERE tool = 'supervisor' AND session_name = 'agent-pinned'").all();
    expect(reads).toEqual([{ role: 'broker', actor: 'broker:supervisor', pane_id: pinnedPane }]);
  });

  it('stops a binding watch whose pinned tmux server pid is not the running server\'s', async () => {
    await session('agent-oldserver', 'sleep 1; read -p "Proceed? [y/N] " a');
    await gw().bindings.bind({ binding: 'sup-oldserver', session: 'agent-oldserver' });
    await gw().supervisor.watch({ binding: 'sup-oldserver' });
    await eventFor('binding:sup-oldserver', 'attention_required');
    // The record made to look as a binding made on an earlier server would (same session
    // id and creation time, another server pid): the running server is not that one.
    deps.stores.bindings.update('sup-oldserver', (b) => ({ result: null, write: { ...b!, serverPid: b!.serverPid + 1 } }));
    await gw().supervisor.runOnce({});
    const e = await eventFor('binding:sup-oldserver', 'watch_target_missing');
    expect(e.reason).toContain('IDENTITY_CHANGED');
  });

  it('keeps no secret a session printed in supervisor.db', async () => {
    await session('agent-leaky', `sleep 1; echo "export ANTHROPIC_API_KEY=${SECRET}"; read -p "Continue? [y/N] " a`);
    await gw().supervisor.watch({ session: 'agent-leaky' });
    const e = await eventFor('session:agent-leaky', 'attention_required');
    expect(e.output_preview).toContain('[REDACTED');
    const stateDir = join(root, 'state');
    const bytes = readdirSync(stateDir)
      .filter((f) => f.startsWith('supervisor.db'))
      .map((f) => readFileSync(join(stateDir, f)).toString('latin1'))
      .join('');
    expect(bytes.length).toBeGreaterThan(0);
    expect(bytes).not.toContain(SECRET);
    expect(bytes).not.toContain(SECRET.slice(0, 24));
  });
});

describe('v2: claim, decide, approve, send once', () => {
  it('lets one of two racing clients claim, sends the approved prompt once, and a repeat sends nothing', async () => {
    await session('agent-v2', 'sleep 1; read -p "Apply the migration? [y/N] " a; echo "answer=$a"');
    await gw().supervisor.watch({ session: 'agent-v2' });
    const e = await eventFor('session:agent-v2', 'attention_required');
    expect((await gw().supervisor2.listActionableEvents({})).events.map((x) => x.id)).not.toContain(e.id); // observe_only
    expect(await codeOf(gw().supervisor2.claimEvent({ event_id: e.id }))).toBe('SUPERVISOR_BLOCKED');
    await gw().supervisor2.setPolicy({ session: 'agent-v2', mode: 'suggest_only' });
    expect((await gw().supervisor2.listActionableEvents({})).events.map((x) => x.id)).toContain(e.id);

    const results = await Promise.allSettled([gw('gateway:a').supervisor2.claimEvent({ event_id: e.id }), gw('gateway:b').supervisor2.claimEvent({ event_id: e.id })]);
    const won = results.filter((r) => r.status === 'fulfilled');
    expect(won).toHaveLength(1);
    const lost = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect(await codeOf(Promise.reject(lost.reason))).toBe('ACTION_CONFLICT');
    const action = (won[0] as PromiseFulfilledResult<{ id: number; claimed_by: string }>).value;
    const claimant = gw(action.claimed_by);
    const other = gw(action.claimed_by === 'gateway:a' ? 'gateway:b' : 'gateway:a');

    expect(await codeOf(other.supervisor2.submitDecision({ action_id: action.id, prompt: 'y' }))).toBe('ACTION_CONFLICT');
    expect(await claimant.supervisor2.submitDecision({ action_id: action.id, prompt: 'y' })).toMatchObject({ state: 'decided', prompt: 'y' });
    // suggest_only: not approved yet, so nothing is typed.
    expect(await claimant.supervisor2.executeSend({ action_id: action.id })).toMatchObject({ sent: false, action: { state: 'decided' } });
    expect(await gw('web:admin').supervisor2.reviewAction({ action_id: action.id, decision: 'approve' })).toMatchObject({ state: 'approved', approved_by: 'web:admin' });

    const [first, second] = await Promise.all([claimant.supervisor2.executeSend({ action_id: action.id }), other.supervisor2.executeSend({ action_id: action.id })]);
    expect([first.sent, second.sent].sort()).toEqual([false, true]);
    await vi.waitFor(
      async () => {
        const out = execFileSync('tmux', ['-L', tmux.socketName, 'capture-pane', '-p', '-t', 'agent-v2'], { encoding: 'utf8' });
        expect(out).toContain('answer=y');
      },
      { timeout: GENEROUS_WAIT_MS, interval: 100 },
    );
    const out = execFileSync('tmux', ['-L', tmux.socketName, 'capture-pane', '-p', '-t', 'agent-v2'], { encoding: 'utf8' });
    expect(out.match(/answer=y/g)).toHaveLength(1);
    const { actions } = await gw().supervisor2.listActions({ watch_key: 'session:agent-v2' });
    expect(actions[0]).toMatchObject({ id: action.id, send_result: { text_length: 1 } });
    expect(['observing', 'completed']).toContain(actions[0]?.state);
    expect(await claimant.supervisor2.executeSend({ action_id: action.id })).toMatchObject({ sent: false });
  });

  it('blocks the action and the policy when the prompt asks for a password', async () => {
    await session('agent-pass', 'sleep 1; read -s -p "Password: " p');
    await gw().supervisor.watch({ session: 'agent-pass' });
    await gw().supervisor2.setPolicy({ session: 'agent-pass', mode: 'approved_auto_continue', approved_template: 'continue' });
    const e = await eventFor('session:agent-pass', 'attention_required');
    expect(await codeOf(gw().supervisor2.claimEvent({ event_id: e.id }))).toBe('SUPERVISOR_BLOCKED');
    const policy = await gw().supervisor2.getPolicy({ session: 'agent-pass' });
    expect(policy.blocked_reason).toContain('credential');
    expect((await gw().supervisor2.listActionableEvents({})).events.map((x) => x.id)).not.toContain(e.id);
    expect(await codeOf(gw().supervisor2.claimEvent({ event_id: e.id }))).toBe('SUPERVISOR_BLOCKED');
  });

  it('refuses a destructive prompt at decision time', async () => {
    await session('agent-rm', 'sleep 1; read -p "Next step? [y/N] " a');
    await gw().supervisor.watch({ session: 'agent-rm' });
    await gw().supervisor2.setPolicy({ session: 'agent-rm', mode: 'suggest_only' });
    const e = await eventFor('session:agent-rm', 'attention_required');
    const a = await gw().supervisor2.claimEvent({ event_id: e.id });
    expect(await codeOf(gw().supervisor2.submitDecision({ action_id: a.id, prompt: 'rm -rf /home' }))).toBe('SUPERVISOR_BLOCKED');
    expect((await gw().supervisor2.listActions({ watch_key: 'session:agent-rm' })).actions[0]).toMatchObject({ state: 'blocked' });
  });
});

describe('verifier', () => {
  function repo(name: string): string {
    const dir = join(root, name);
    execFileSync('git', ['init', '-q', dir]);
    writeFileSync(join(dir, 'a.txt'), 'a\n');
    execFileSync('git', ['-C', dir, 'add', 'a.txt']);
    execFileSync('git', ['-C', dir, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'a']);
    return dir;
  }

  async function autonomousDone(name: string, verifier?: Record<string, unknown>): Promise<SupervisorEvent[]> {
    await session(name, 'read go; echo TERMINAL_MCP_DONE');
    await gw().supervisor.watch({ session: name });
    await gw().supervisor2.setPolicy({ session: name, mode: 'approved_auto_continue', approved_template: 'continue' });
    if (verifier) await gw().supervisor.setVerifierPolicy({ session: name, ...verifier } as never);
    await release(name);
    let events: SupervisorEvent[] = [];
    await vi.waitFor(
      async () => {
        events = (await gw().supervisor.listEvents({ watch_key: `session:${name}` })).events;
        expect(events.some((e) => ['FAILED', 'BLOCKED', 'VERIFIED_DONE'].includes(e.state))).toBe(true);
      },
      { timeout: GENEROUS_WAIT_MS, interval: 100 },
    );
    return events;
  }

  it('refuses a dirty worktree', async () => {
    const dir = repo('dirty');
    writeFileSync(join(dir, 'b.txt'), 'untracked\n');
    expect(dir).toBe(join(root, 'dirty'));
    const events = await autonomousDone('agent-ver-dirty', { profile: 'dirty' });
    expect(events[0]).toMatchObject({ state: 'FAILED' });
    expect(events[0]?.reason).toContain('not clean');
    expect((await gw().supervisor2.getPolicy({ session: 'agent-ver-dirty' })).blocked_reason).toContain('not clean');
  });

  it('runs a profile\'s failing test command (argv, no shell) and fails the claim', async () => {
    repo('failing');
    const events = await autonomousDone('agent-ver-fail', { profile: 'failing' });
    expect(events[0]).toMatchObject({ state: 'FAILED' });
    expect(events[0]?.reason).toContain('exited with code 3');
  });

  it('verifies a clean worktree whose tests pass', async () => {
    repo('passing');
    const events = await autonomousDone('agent-ver-ok', { profile: 'passing' });
    expect(events[0]).toMatchObject({ state: 'VERIFIED_DONE', event_type: 'completed' });
  });

  it('refuses a profile the operator did not configure, and the old client-chosen shape', async () => {
    await session('agent-ver-unknown', 'echo hi');
    await gw().supervisor.watch({ session: 'agent-ver-unknown' });
    expect(await codeOf(gw().supervisor.setVerifierPolicy({ session: 'agent-ver-unknown', profile: 'nope' }))).toBe('NOT_FOUND');
    await expect(gw().supervisor.setVerifierPolicy({ session: 'agent-ver-unknown', worktree: root, test_command: ['true'] } as never)).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    expect(await gw().supervisor.setVerifierPolicy({ session: 'agent-ver-unknown', profile: 'passing' })).toEqual({
      watch_key: 'session:agent-ver-unknown',
      profile: 'passing',
      require_git_clean: true,
      require_commit_matches: null,
      runs_test_command: true,
      timeout_seconds: 300,
    });
    expect((await gw().supervisor.status({})).verifier_profiles).toEqual(['dirty', 'failing', 'passing']);
  });

  it('never reaches verified done for an autonomous watch without a verifier', async () => {
    const events = await autonomousDone('agent-ver-none');
    expect(events[0]).toMatchObject({ state: 'BLOCKED' });
    expect(events.some((e) => e.state === 'VERIFIED_DONE')).toBe(false);
  });
});
