// Guards the project intents end to end (real tmux, real git repo, real stores): project_check reports agents, git, deploy readiness and the supervisor's watches with blockers; project_dispatch goes through send_task (one delivery, replay with the same key sends nothing, a different task under the key is refused); deploy_preview runs only a fixed command of a preview-safe profile, redacted and time-bounded, and refuses any other id.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readAppErrorData } from '@terminal-mcp/contract';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { git } from '../../../../test/src/helpers/source-repo.js';
import { startTmuxServer, type TmuxTestServer } from '../../../../test/src/helpers/tmux-server.js';
import { configSchema, type BrokerConfig } from '../config/schema.js';
import type { BrokerDeps } from '../rpc/deps.js';
import { testDeps } from '../testing/deps.testkit.js';
import { createTmuxAdapter, type ControlModeTmuxAdapter } from '../effects/tmux/adapter.js';
import { createContextInner } from '../rpc/context.js';
import { gatewayRouter } from '../rpc/roles/gateway.js';
import { createCallerFactory } from '../rpc/trpc.js';

const SECRET = 'ghp_abcdefghijklmnopqrstuvwxyz0123456789';

let tmux: TmuxTestServer;
let adapter: ControlModeTmuxAdapter;
let root: string;
let repo: string;
let deps: BrokerDeps;
let probe: Server;
let probePort: number;

function config(): BrokerConfig {
  return configSchema.parse({
    log_level: 'silent',
    permissions: { terminal_read: true, terminal_input: true },
    allowed_session_patterns: ['agent-*'],
    observer: { source_roots: [{ name: 'demo', path: repo }] },
    project_profiles: [
      {
        name: 'demo',
        repo: 'demo',
        sessions: ['agent-demo', 'agent-absent'],
        deploy_preview: {
          preview_safe: true,
          commands: [
            { id: 'build', argv: ['sh', '-c', `echo building in $(basename "$PWD"); echo token=${SECRET}; exit 3`] },
            { id: 'slow', argv: ['sleep', '30'], timeout_seconds: 1 },
            { id: 'missing', argv: ['no-such-program-x1'] },
          ],
          probes: [
            // The probe's server runs in this test process: on a busy machine its answer took
            // over the default 2 s. Sized for a machine five times slower.
            { id: 'web', url: `http://127.0.0.1:${probePort}/`, timeout_seconds: 25 },
            { id: 'down', url: 'http://127.0.0.1:9/' },
          ],
        },
      },
      { name: 'unsafe', repo: 'demo', sessions: ['agent-demo'], deploy_preview: { commands: [{ id: 'build', argv: ['true'] }] } },
    ],
  });
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'tmcp-projects-'));
  repo = join(root, 'demo');
  const home = join(root, 'home');
  mkdirSync(repo);
  mkdirSync(home);
  git(repo, home, ['init', '-q', '-b', 'main']);
  writeFileSync(join(repo, 'README.md'), '# demo\n');
  git(repo, home, ['add', '-A']);
  git(repo, home, ['commit', '-q', '-m', 'First commit']);
  writeFileSync(join(repo, 'README.md'), '# demo, edited\n');

  probe = createServer((_req, res) => res.end('ok'));
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
  probePort = (probe.address() as { port: number }).port;

  tmux = await startTmuxServer();
  adapter = createTmuxAdapter({ socketName: tmux.socketName, configFile: '/dev/null' });
  expect(await adapter.waitUntilConnected(10_000)).toBe(true);
  deps = testDeps({ config: config(), tmux: adapter, stateDir: join(root, 'state'), info: { version: 'test', startedAt: new Date(), tmuxSocket: tmux.socketName } });

  // The agent: a line reader recording each submitted line.
  const ready = join(root, 'agent.ready');
  await tmux.newSession('agent-demo', `exec bash --norc --noprofile -c 'touch ${ready}; while IFS= read -r line; do printf "%s\\n" "$line" >> ${join(root, 'agent.lines')}; done'`, { width: 120, height: 30 });
  await vi.waitFor(() => expect(existsSync(ready)).toBe(true), { timeout: 60_000, interval: 25 });
}, 60_000);

afterAll(async () => {
  probe?.close();
  await adapter?.close();
  deps?.stores.close();
  await tmux?.kill();
  rmSync(root, { recursive: true, force: true });
});

const gw = () => createCallerFactory(gatewayRouter)(createContextInner({ role: 'gateway', deps, actor: 'gateway:projects-test' }));
const agentLines = () => (existsSync(join(root, 'agent.lines')) ? readFileSync(join(root, 'agent.lines'), 'utf8').split('\n').slice(0, -1) : []);

async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    return readAppErrorData((err as { cause?: unknown }).cause)?.code ?? `trpc:${(err as { code?: string }).code}`;
  }
  throw new Error('expected a refusal');
}

describe('project intents', { timeout: 180_000 }, () => {
  it('project_check reports agents, git, deploy readiness and blockers in plain words', async () => {
    const r = await gw().projects.check({ project: 'demo' });
    expect(r.target).toEqual({ kind: 'session', name: 'agent-demo' });
    expect(r.sessions[0]).toMatchObject({ session: 'agent-demo', exists: true, read_allowed: true, error_code: null });
    expect(r.sessions[0]!.status).not.toBeNull();
    expect(r.sessions[1]).toMatchObject({ session: 'agent-absent', exists: false, error_code: 'SESSION_NOT_FOUND' });
    expect(r.git).toMatchObject({ available: true, branch: 'main', dirty: true, changed: 1, last_commit: { subject: 'First commit' } });
    expect(r.deploy.commands).toEqual([
      { id: 'build', program_found: true },
      { id: 'slow', program_found: true },
      { id: 'missing', program_found: false },
    ]);
    expect(r.deploy.probes.map((p) => [p.id, p.ok])).toEqual([
      ['web', true],
      ['down', false],
    ]);
    expect(r.blockers).toEqual(
      expect.arrayContaining([
        'the working tree has 1 uncommitted change(s)',
        'session "agent-absent" is not running',
        'deploy command missing: its program is not installed',
        expect.stringMatching(/^probe down \(http:\/\/127\.0\.0\.1:9\/\) /),
      ]),
    );
    expect(await codeOf(gw().projects.check({ project: 'nope' }))).toBe('NOT_FOUND');
  });

  it('project_check reports the supervisor: its watches on the project and their unacknowledged events', async () => {
    const before = await gw().projects.check({ project: 'demo' });
    expect(before.supervisor).toMatchObject({ available: true, enabled: false, watches: [], unacknowledged_events: 0 });
    expect(before.supervisor.note).toContain('supervisor_watch');
    const watch = await gw().supervisor.watch({ session: 'agent-demo' });
    // Two events the supervisor would record for it (a quiet agent records none by itself);
    // one is acknowledged, so one is still open.
    const store = deps.supervisor.deps.store;
    const row = store.watchByKey(watch.watch_key)!;
    const event = { watch_id: row.id, watch_key: row.watch_key, kind: 'session' as const, target: 'agent-demo', previous_state: 'RUNNING', state: 'WAITING_INPUT', event_type: 'attention_required', reason: 'a prompt', output_preview: '', output_hash: 'h', iteration_count: 1, metadata: '{}' };
    store.addEvent({ ...event, at: Date.now() }, 100);
    const acked = store.addEvent({ ...event, at: Date.now() }, 100);
    await gw().supervisor.ackEvent({ event_id: acked.id });
    const after = await gw().projects.check({ project: 'demo' });
    expect(after.supervisor.watches).toEqual([{ watch_key: 'session:agent-demo', state: expect.any(String), enabled: true }]);
    expect(after.supervisor.unacknowledged_events).toBe(1);
    await gw().supervisor.unwatch({ session: 'agent-demo' });
  });

  it('project_dispatch submits once through send_task, and a replay with the same key sends nothing', async () => {
    const first = await gw().projects.dispatch({ project: 'demo', task: 'run the tests', idempotency_key: 'task-1' });
    expect(first).toMatchObject({ project: 'demo', session: 'agent-demo', receipt: 'SUBMIT_CONFIRMED', replayed: false });
    await vi.waitFor(() => expect(agentLines()).toEqual(['run the tests']), { timeout: 60_000 });
    const again = await gw().projects.dispatch({ project: 'demo', task: 'run the tests', idempotency_key: 'task-1' });
    expect(again).toMatchObject({ receipt: 'SUBMIT_CONFIRMED', replayed: true, audit_id: first.audit_id });
    expect(await codeOf(gw().projects.dispatch({ project: 'demo', task: 'something else', idempotency_key: 'task-1' }))).toBe('INVALID_ARGUMENT');
    expect(await codeOf(gw().projects.dispatch({ project: 'demo', task: 'x' } as never))).toBe('trpc:BAD_REQUEST');
    await new Promise((r) => setTimeout(r, 300));
    expect(agentLines()).toEqual(['run the tests']);
    const audit = await gw().audit.listInput({ session: 'agent-demo' });
    // One attempt sent; the replay and the key reused for other text are audited as refused.
    const tasks = audit.entries.filter((e) => e.tool === 'terminal_send_task');
    expect(tasks.filter((e) => e.decision !== 'BLOCKED')).toHaveLength(1);
    // The replay (no code: its receipt says REPLAYED) and the key reused for other text.
    expect(tasks.filter((e) => e.decision === 'BLOCKED').map((e) => e.error_code).sort()).toEqual(['INVALID_ARGUMENT', null]);
  });

  it('deploy_preview runs a fixed command with redacted output, and refuses anything not in a preview-safe profile', async () => {
    const build = await gw().projects.deployPreview({ project: 'demo', command_id: 'build' });
    expect(build).toMatchObject({ exit_code: 3, timed_out: false });
    expect(build.output).toContain('building in demo');
    expect(build.output).not.toContain(SECRET);
    expect(build.redactions).toBeGreaterThan(0);
    const slow = await gw().projects.deployPreview({ project: 'demo', command_id: 'slow' });
    expect(slow).toMatchObject({ timed_out: true, exit_code: null });

    expect(await codeOf(gw().projects.deployPreview({ project: 'demo', command_id: 'rm-rf' }))).toBe('FORBIDDEN');
    expect(await codeOf(gw().projects.deployPreview({ project: 'unsafe', command_id: 'build' }))).toBe('FORBIDDEN');
    expect(await codeOf(gw().projects.deployPreview({ project: 'demo', command_id: 'sh -c id' }))).toBe('trpc:BAD_REQUEST');
  });
});
