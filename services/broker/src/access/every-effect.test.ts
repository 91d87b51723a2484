// Derives every procedure of every role router from the source (rpc/roles) and calls each one as a read-only principal, with the input switch off, and through a role that does not serve it, over a real tmux server, real stores and real configured commands: a read-only caller changes no pane, no store and starts no process; with input off nobody types or starts a process; another role's call changes nothing. A procedure without a sample input fails the test, so a new path to an effect cannot slip past.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BROKER_HEADERS, readAppErrorData, type SocketRole } from '@terminal-mcp/contract';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { effectsBetween, markersExist, paneBytes, recordingPaneCommand, TINY_PNG_BASE64, watchStores, type EffectSnapshot, type StoreWatch } from '../../../../test/src/helpers/effects.js';
import { waitFor } from '../../../../test/src/helpers/wait-for.js';
import { configSchema, type BrokerConfig } from '../config/schema.js';
import { gatewayAccessToken } from '../oauth/gateway-token.testkit.js';
import { contextFromRequest, createContextInner, type BrokerContext } from '../rpc/context.js';
import type { BrokerDeps } from '../rpc/deps.js';
import { ROLE_ROUTERS } from '../rpc/roles/index.js';
import { createCallerFactory } from '../rpc/trpc.js';
import { withConfig } from '../testing/deps.testkit.js';
import { startLiveTestBroker, type LiveTestBroker } from '../testing/live-broker.testkit.js';
import { operatorToken } from '../webauth/operator-token.testkit.js';

type Role = keyof typeof ROLE_ROUTERS;
const ROLES = Object.keys(ROLE_ROUTERS) as Role[];
type ProcedureDef = { _def: { type: 'query' | 'mutation' | 'subscription'; meta?: { effect?: string } } };
const proceduresOf = (role: Role) => Object.entries(ROLE_ROUTERS[role]._def.procedures as unknown as Record<string, ProcedureDef>);

const TARGET = 'agent-target';
const DONE = 'agent-done';
/** A session a launch profile started: what close and restart may act on. */
const MANAGED = 'agent-managed';
const PNG = TINY_PNG_BASE64;

let root: string;
let repo: string;
let broker: LiveTestBroker;
let depsOn: BrokerDeps;
let depsOff: BrokerDeps;
let readOnlyToken: string;
let fullToken: string;
let operator: string;

/** What the fixtures made, for the sample inputs. */
const fx = { managedId: '$0', noteId: 0, attachmentId: '', eventId: 0, actionId: 0, transcriptId: '1-1-1', cursor: 'c0', resumeToken: 'r'.repeat(32), clientId: 'tmcp_c_nobody' };

const markers = () => ({ deploy: join(root, 'deploy-ran'), verify: join(root, 'verify-ran') });

function config(input: boolean): BrokerConfig {
  return configSchema.parse({
    permissions: { terminal_read: true, terminal_input: input, session_lifecycle: input },
    launch_profiles: [{ name: 'agent', command: ['sleep', '600'], roots: [root], name_pattern: 'agent-*' }],
    allowed_session_patterns: ['agent-*'],
    input_policy: { allowed_session_patterns: ['agent-*'] },
    observer: { source_roots: [{ name: 'app', path: repo }] },
    notes: { attachment_source_roots: [join(root, 'images')] },
    project_profiles: [{ name: 'app', repo: 'app', sessions: [TARGET], deploy_preview: { preview_safe: true, commands: [{ id: 'mark', argv: ['touch', markers().deploy] }] } }],
    supervisor: {
      enabled: false,
      v2_enabled: true,
      poll_interval_seconds: 3600,
      idle_threshold_seconds: 1,
      max_iterations: 100_000,
      verifier_profiles: [{ id: 'mark', worktree: repo, require_git_clean: false, test_command: ['touch', markers().verify] }],
    },
  });
}

/** Every procedure's sample input, by `role:path` or `path`. A procedure missing here
 * fails the test: add a sample that would have an effect if the call were allowed. */
const SAMPLES: Record<string, () => unknown> = {
  'sessions.list': () => ({}),
  'sessions.tail': () => ({ session: TARGET }),
  'sessions.capture': () => ({ session: TARGET }),
  'sessions.status': () => ({ session: TARGET }),
  'sessions.panes': () => ({ session: TARGET }),
  'sessions.batchInspect': () => ({ sessions: [TARGET] }),
  'sessions.readSince': () => ({ session: TARGET }),
  'sessions.exportTranscript': () => ({ session: TARGET }),
  'wait.forState': () => ({ session: TARGET, states: ['RUNNING'], timeout_s: 0 }),
  'wait.resume': () => ({ resume_token: fx.resumeToken, timeout_s: 0 }),
  'input.context': () => ({ session: TARGET }),
  'input.sendText': () => ({ session: TARGET, text: 'typed-by-the-attack', enter: true }),
  'input.sendBound': () => ({ binding: 'fixture-bind', text: 'typed-by-the-attack', enter: true }),
  'input.sendKeys': () => ({ session: TARGET, keys: ['Enter'] }),
  'input.sendTask': () => ({ session: TARGET, text: 'typed-by-the-attack' }),
  'input.run': () => ({ session: TARGET, command: 'typed-by-the-attack' }),
  'lifecycle.start': () => ({ profile: 'agent', name: 'agent-started-by-attack' }),
  'lifecycle.close': () => ({ session: MANAGED, expect_session_id: fx.managedId, confirm: true }),
  'lifecycle.restart': () => ({ session: MANAGED, expect_session_id: fx.managedId, confirm: true }),
  'lifecycle.resize': () => ({ session: TARGET, width: 60, height: 15 }),
  // A live session: forgetting it is refused by rule; the read-only and other-role calls must not even get that far.
  'lifecycle.forget': () => ({ session: MANAGED, expect_session_id: fx.managedId, confirm: true }),
  'lifecycle.profiles': () => undefined,
  'lifecycle.managed': () => undefined,
  'bindings.bind': () => ({ binding: 'fixture-bind', session: DONE, replace: true, input_enabled: true }),
  'bindings.get': () => ({ binding: 'fixture-bind' }),
  'bindings.list': () => ({}),
  'bindings.unbind': () => ({ binding: 'fixture-bind' }),
  'bindings.tail': () => ({ binding: 'fixture-bind' }),
  'bindings.status': () => ({ binding: 'fixture-bind' }),
  'audit.listInput': () => ({ limit: 5 }),
  'audit.readSummary': () => ({}),
  'notes.search': () => ({ query: 'fixture' }),
  'notes.get': () => ({ id: fx.noteId }),
  'notes.list': () => ({}),
  'notes.facets': () => ({}),
  'notes.create': () => ({ title: 'planted by the attack' }),
  'notes.update': () => ({ id: fx.noteId, title: 'changed by the attack' }),
  'notes.delete': () => ({ id: fx.noteId }),
  'notes.restore': () => ({ id: fx.noteId }),
  'gateway:notes.addAttachment': () => ({ id: fx.noteId, source_path: join(root, 'images', 'dot.png') }),
  'web:notes.addAttachment': () => ({ id: fx.noteId, data_base64: PNG }),
  'notes.removeAttachment': () => ({ attachment_id: fx.attachmentId }),
  'notes.linkToProject': () => ({ id: fx.noteId, project: 'attack' }),
  'notes.markApplied': () => ({ id: fx.noteId, where: 'attack' }),
  'notes.attachment': () => ({ attachment_id: fx.attachmentId }),
  'projects.check': () => ({ project: 'app' }),
  'projects.dispatch': () => ({ project: 'app', task: 'typed-by-the-attack', idempotency_key: `k-${Math.random()}` }),
  'projects.deployPreview': () => ({ project: 'app', command_id: 'mark' }),
  'supervisor.watch': () => ({ session: DONE, done_marker: 'FIXTURE-DONE' }),
  'supervisor.unwatch': () => ({ session: TARGET }),
  'supervisor.listWatches': () => ({}),
  'supervisor.status': () => ({}),
  'supervisor.listEvents': () => ({}),
  'supervisor.ackEvent': () => ({ event_id: fx.eventId }),
  'supervisor.runOnce': () => ({}),
  'supervisor.waitEvents': () => ({ timeout_s: 0 }),
  'supervisor.setVerifierPolicy': () => ({ session: DONE, profile: 'mark' }),
  'supervisor2.setPolicy': () => ({ session: TARGET, mode: 'approved_auto_continue', approved_template: 'y' }),
  'supervisor2.getPolicy': () => ({ session: TARGET }),
  'supervisor2.listActionableEvents': () => ({}),
  'supervisor2.claimEvent': () => ({ event_id: fx.eventId }),
  'supervisor2.submitDecision': () => ({ action_id: fx.actionId, prompt: 'y' }),
  'supervisor2.reviewAction': () => ({ action_id: fx.actionId, decision: 'approve' }),
  'supervisor2.executeSend': () => ({ action_id: fx.actionId }),
  'supervisor2.listActions': () => ({}),
  'supervisorDashboard.listWatches': () => ({}),
  'supervisorDashboard.listEvents': () => ({}),
  'supervisorDashboard.waitEvents': () => ({ timeout_s: 0 }),
  'supervisorDashboard.ackEvent': () => ({ event_id: fx.eventId }),
  'supervisorDashboard.listActions': () => ({}),
  'supervisorDashboard.reviewAction': () => ({ action_id: fx.actionId, decision: 'approve' }),
  'supervisorDashboard.pause': () => ({ watch_key: `session:${TARGET}` }),
  'supervisorDashboard.listParks': () => ({}),
  'supervisorDashboard.resumePark': () => ({ park_id: 1 }),
  'supervisorDashboard.cancelPark': () => ({ park_id: 1 }),
  'source.listProjects': () => ({}),
  'source.gitStatus': () => ({ project: 'app' }),
  'source.gitLog': () => ({ project: 'app' }),
  'source.showCommit': () => ({ project: 'app', rev: 'HEAD' }),
  'source.diff': () => ({ project: 'app', from: 'HEAD' }),
  'source.listRefs': () => ({ project: 'app' }),
  'source.blame': () => ({ project: 'app', path: 'a.txt' }),
  'source.listFiles': () => ({ project: 'app' }),
  'source.readFile': () => ({ project: 'app', path: 'a.txt' }),
  'source.searchText': () => ({ project: 'app', query: 'a' }),
  'oauth.registerClient': () => ({ redirectUris: ['http://127.0.0.1:9/cb'], tokenEndpointAuthMethod: 'none' }),
  'oauth.describeAuthorization': () => ({ clientId: fx.clientId, redirectUri: 'http://127.0.0.1:9/cb' }),
  'oauth.approveAuthorization': () => ({
    username: 'nobody',
    password: 'wrong password 123',
    sourceIp: '127.0.0.1',
    clientId: fx.clientId,
    redirectUri: 'http://127.0.0.1:9/cb',
    codeChallenge: 'A'.repeat(43),
    codeChallengeMethod: 'S256',
    resource: 'http://127.0.0.1:9/mcp',
  }),
  'oauth.exchangeToken': () => ({ grantType: 'refresh_token', clientId: fx.clientId, refreshToken: `tmcp_rt_${'x'.repeat(43)}` }),
  'oauth.revokeToken': () => ({ clientId: fx.clientId, token: `tmcp_at_${'x'.repeat(43)}` }),
  'oauth.verifyAccessToken': () => ({ token: `tmcp_at_${'x'.repeat(43)}`, resource: 'http://127.0.0.1:9/mcp' }),
  'oauthAdmin.listClients': () => undefined,
  'oauthAdmin.listGrants': () => undefined,
  'oauthAdmin.listRevocations': () => ({}),
  'oauthAdmin.revokeClient': () => ({ clientId: fx.clientId }),
  'oauthAdmin.revokeUser': () => ({ username: 'alice' }),
  'oauthAdmin.revokeGrant': () => ({ grantId: 'g_nothing' }),
  'grants.list': () => ({}),
  'grants.set': () => ({ session: TARGET, read: true, input: true }),
  'grants.revoke': () => ({ session: TARGET }),
  'grants.bulkSet': () => ({ sessions: [TARGET], read: true, input: true }),
  'grants.events': () => ({}),
  'auth.login': () => ({ username: 'nobody', password: 'wrong password 123', sourceIp: '127.0.0.1' }),
  'auth.logout': () => ({ token: 'x'.repeat(32) }),
  'auth.validateSession': () => ({ token: 'x'.repeat(32) }),
  'auth.changePassword': () => ({ token: 'x'.repeat(32), currentPassword: 'wrong password 123', newPassword: 'another password 456', sourceIp: '127.0.0.1' }),
  'transcripts.file': () => ({ transcript_id: fx.transcriptId, format: 'text' }),
  'live.paneOutput': () => ({ session: TARGET, operatorSession: operator }),
  'health.ready': () => undefined,
  'health.info': () => undefined,
  'nodes.health': () => ({}),
  'nodes.overview': () => undefined,
  'human.request': () => ({ session: TARGET, reason: 'asked by the attack' }),
  'human.notify': () => ({ message: 'sent by the attack', level: 'urgent' }),
  'notifier.started': () => ({}),
  'notifier.claim': () => ({ max: 1, wait_ms: 0 }),
  'notifier.report': () => ({ id: 1, outcome: 'SENT', http_status: 200, reason: null, attempts: 1 }),
  'human.notices': () => ({}),
  'review.waitForApproval': () => ({ approval_id: 1, timeout_s: 0 }),
  'review.list': () => undefined,
  'review.approve': () => ({ approval_id: 1 }),
  'review.reject': () => ({ approval_id: 1 }),
  'human.answerSecret': () => ({ session: TARGET, secret: 'typed-by-the-attack' }),
  'human.promptReader': () => ({ session: TARGET }),
  'catalogue.toolsets': () => undefined,
};

const sampleFor = (role: Role, path: string) => SAMPLES[`${role}:${path}`] ?? SAMPLES[path];

// ---------------------------------------------------------------- effects we look for

const FIXTURE_PANES = [TARGET, DONE];
let stores: StoreWatch;
/** Each session by name, identity and window size: a start, close, restart or resize shows. */
const sessionNames = async () => (await broker.adapter.listSessions()).map((x) => `${x.name} ${x.sessionId} ${x.activePane?.width}x${x.activePane?.height}`).sort();

/** Taken right before a call: the process markers are removed first, so every call that
 * runs a configured command shows, not only the first. */
async function snapshot(fresh = false): Promise<EffectSnapshot> {
  if (fresh) for (const marker of Object.values(markers())) rmSync(marker, { force: true });
  return { panes: paneBytes(root, FIXTURE_PANES), stores: stores.versions(), processes: markersExist(markers()), sessions: await sessionNames() };
}
const changes = effectsBetween;

// ---------------------------------------------------------------- calling

/** Calls `role`'s procedure `path` with the caller context `ctx`; resolves with the
 * outcome (value or error code), never throws. A subscription is read for one frame. */
async function call(router: Role, path: string, ctx: BrokerContext): Promise<string> {
  const caller = createCallerFactory(ROLE_ROUTERS[router] as typeof ROLE_ROUTERS.gateway)(ctx) as unknown as Record<string, Record<string, (input: unknown) => Promise<unknown>>>;
  const [group, name] = path.split('.') as [string, string];
  try {
    const result = await caller[group]![name]!(sampleFor(router, path)?.());
    if (result !== null && typeof result === 'object' && Symbol.asyncIterator in result) {
      const it = (result as AsyncIterable<unknown>)[Symbol.asyncIterator]();
      await Promise.race([it.next(), new Promise((r) => setTimeout(r, 2_000))]);
      await it.return?.();
    }
    return 'ok';
  } catch (err) {
    return (readAppErrorData((err as { cause?: unknown }).cause) ?? readAppErrorData(err))?.code ?? `trpc:${(err as { code?: string }).code ?? 'unknown'}`;
  }
}

const gatewayCtx = (deps: BrokerDeps, headers: Record<string, string>) => contextFromRequest('gateway', deps, headers);

// ---------------------------------------------------------------- fixtures

const recorder = (name: string, prompt: string) => recordingPaneCommand(root, name, prompt);

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'tmcp-every-'));
  repo = join(root, 'repo');
  execFileSync('git', ['init', '-q', repo]);
  writeFileSync(join(repo, 'a.txt'), 'a\n');
  execFileSync('git', ['-C', repo, 'add', 'a.txt']);
  execFileSync('git', ['-C', repo, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'a']);
  mkdirSync(join(root, 'images'));
  writeFileSync(join(root, 'images', 'dot.png'), Buffer.from(PNG, 'base64'));

  broker = await startLiveTestBroker({ config: config(true), stateDir: join(root, 'state'), graceMs: 150 });
  stores = watchStores(join(root, 'state'));
  depsOn = broker.deps;
  depsOff = withConfig(depsOn, config(false));
  readOnlyToken = await gatewayAccessToken(depsOn, { scope: 'terminal:read', username: 'alice', clientName: 'Reader' });
  fullToken = await gatewayAccessToken(depsOn, { scope: 'terminal:read terminal:write terminal:input', username: 'alice', clientName: 'Owner' });
  operator = operatorToken(depsOn, 'admin');

  await broker.server.newSession(TARGET, recorder(TARGET, 'Continue? [y/N] '), { width: 100, height: 20 });
  await broker.server.newSession(DONE, recorder(DONE, 'FIXTURE-DONE'), { width: 100, height: 20 });
  for (const s of [TARGET, DONE]) await waitFor(`${s} recording`, async () => (await broker.server.tmux(['list-panes', '-t', `=${s}:`, '-F', '#{pane_current_command}'])).includes('python'), 20_000, 100);

  // What the procedures act on, made by a client that may do everything (input on).
  const owner = createCallerFactory(ROLE_ROUTERS.gateway)(gatewayCtx(depsOn, { [BROKER_HEADERS.credential]: fullToken }));
  await owner.bindings.bind({ binding: 'fixture-bind', session: TARGET, input_enabled: true });
  fx.managedId = (await owner.lifecycle.start({ profile: 'agent', name: MANAGED })).session_id!;
  fx.noteId = (await owner.notes.create({ title: 'fixture note' })).id;
  fx.attachmentId = (await owner.notes.addAttachment({ id: fx.noteId, data_base64: PNG })).id;
  await owner.supervisor.watch({ session: TARGET });
  await owner.supervisor2.setPolicy({ session: TARGET, mode: 'suggest_only' });
  await vi.waitFor(
    async () => {
      await owner.supervisor.runOnce({});
      const e = (await owner.supervisor.listEvents({ watch_key: `session:${TARGET}` })).events.find((x) => x.event_type === 'attention_required');
      expect(e).toBeDefined();
      fx.eventId = e!.id;
    },
    { timeout: 60_000, interval: 200 },
  );
  const action = await owner.supervisor2.claimEvent({ event_id: fx.eventId });
  await owner.supervisor2.submitDecision({ action_id: action.id, prompt: 'y' });
  // Approved by another identity, so a send would go out if a call were allowed to make it.
  const reviewer = await gatewayAccessToken(depsOn, { scope: 'terminal:read terminal:input', username: 'bob', clientName: 'Reviewer' });
  await createCallerFactory(ROLE_ROUTERS.gateway)(gatewayCtx(depsOn, { [BROKER_HEADERS.credential]: reviewer })).supervisor2.reviewAction({ action_id: action.id, decision: 'approve' });
  fx.actionId = action.id;
  // An autonomous watch whose pane already shows its done marker: the next evaluation runs
  // the verifier profile (a process) unless something stops it.
  await owner.supervisor.watch({ session: DONE, done_marker: 'NOT-YET' });
  await owner.supervisor2.setPolicy({ session: DONE, mode: 'approved_auto_continue', approved_template: 'y' });
  await owner.supervisor.setVerifierPolicy({ session: DONE, profile: 'mark' });
  const registered = await createCallerFactory(ROLE_ROUTERS.gateway)(gatewayCtx(depsOn, {})).oauth.registerClient({ redirectUris: ['http://127.0.0.1:9/cb'], tokenEndpointAuthMethod: 'none' });
  if (!registered.ok) throw new Error('fixture: client registration refused');
  fx.clientId = registered.client.clientId;
  expect(paneBytes(root, FIXTURE_PANES)).toEqual({ [TARGET]: '', [DONE]: '' });
  expect(markersExist(markers())).toEqual({ deploy: false, verify: false });
}, 120_000);

afterAll(async () => {
  stores?.close();
  await broker?.close();
  if (root) rmSync(root, { recursive: true, force: true });
});

describe('every procedure, derived from the role routers', () => {
  it('has a sample input for every procedure of every role (add one for a new procedure)', () => {
    const missing = ROLES.flatMap((role) => proceduresOf(role).map(([path]) => [role, path] as const)).filter(([role, path]) => sampleFor(role, path) === undefined);
    expect(missing.map(([role, path]) => `${role}:${path}`)).toEqual([]);
  });

  it('a read-only caller changes no pane, no store and starts no process, through any procedure', async () => {
    const callers: Record<Role, () => BrokerContext> = {
      gateway: () => gatewayCtx(depsOn, { [BROKER_HEADERS.credential]: readOnlyToken }),
      observer: () => contextFromRequest('observer', depsOn, { [BROKER_HEADERS.actor]: 'reader' }),
      // web.sock without an operator session: what the dashboard can ask before sign-in.
      web: () => contextFromRequest('web', depsOn, {}),
      // The notifier can name only the notice outbox (empty here: nothing to claim or report).
      notifier: () => contextFromRequest('notifier', depsOn, {}),
    };
    const found: string[] = [];
    for (const role of ROLES) {
      for (const [path, proc] of proceduresOf(role)) {
        const before = await snapshot(true);
        const outcome = await call(role, path, callers[role]());
        const after = await snapshot();
        const diff = changes(before, after);
        // Signing in (registration, tokens, login) writes the OAuth and account stores by design.
        const stores = proc._def.meta?.effect === 'sign-in' ? diff.stores.filter((t) => t !== 'oauth' && t !== 'webauth') : diff.stores;
        if (diff.panes.length + stores.length + diff.processes.length > 0) found.push(`${role}:${path} (${outcome}) changed ${[...diff.panes, ...stores, ...diff.processes].join(', ')}`);
      }
    }
    expect(found).toEqual([]);
  }, 300_000);

  it('a role that does not serve a procedure is refused before it does anything', async () => {
    const found: string[] = [];
    for (const role of ROLES) {
      for (const other of ROLES.filter((r) => r !== role)) {
        // Everything the other socket could be: the most a principal of it can do.
        const ctx = () => (other === 'web' ? contextFromRequest('web', depsOn, { [BROKER_HEADERS.operatorSession]: operator }) : createContextInner({ role: other as SocketRole, deps: depsOn, actor: `${other}:probe` }));
        for (const [path] of proceduresOf(role).filter(([, proc]) => !proceduresOf(other).some(([, q]) => q === proc))) {
          const before = await snapshot(true);
          const outcome = await call(role, path, ctx());
          const diff = changes(before, await snapshot());
          if (outcome !== 'FORBIDDEN' || diff.panes.length + diff.stores.length + diff.processes.length > 0) {
            found.push(`${role}:${path} called as ${other}: ${outcome}; changed ${[...diff.panes, ...diff.stores, ...diff.processes].join(', ') || 'nothing'}`);
          }
        }
      }
    }
    expect(found).toEqual([]);
  }, 300_000);

  it('with input off, no caller types into a pane or starts a process, through any procedure', async () => {
    const callers: [string, Role, () => BrokerContext][] = [
      ['an OAuth token with every scope', 'gateway', () => gatewayCtx(depsOff, { [BROKER_HEADERS.credential]: fullToken })],
      ['the static token', 'gateway', () => gatewayCtx(depsOff, { [BROKER_HEADERS.principal]: 'token' })],
      ['a stdio gateway', 'gateway', () => gatewayCtx(depsOff, { [BROKER_HEADERS.principal]: 'stdio:alice' })],
      ['the observer', 'observer', () => contextFromRequest('observer', depsOff, {})],
      ['a signed-in operator', 'web', () => contextFromRequest('web', depsOff, { [BROKER_HEADERS.operatorSession]: operator })],
    ];
    const found: string[] = [];
    for (const [who, role, ctx] of callers) {
      for (const [path] of proceduresOf(role)) {
        const before = await snapshot(true);
        const outcome = await call(role, path, ctx());
        const diff = changes(before, await snapshot());
        if (diff.panes.length + diff.processes.length > 0) found.push(`${who} ${role}:${path} (${outcome}) changed ${[...diff.panes, ...diff.processes].join(', ')}`);
      }
    }
    expect(found).toEqual([]);
  }, 600_000);

  it('sees an effect when one happens (the detectors work): a full caller with input on types, writes and runs', async () => {
    // A new token: the operator revoked alice's grants above (oauthAdmin.revokeUser).
    const token = await gatewayAccessToken(depsOn, { scope: 'terminal:read terminal:write terminal:input', username: 'carol', clientName: 'Control' });
    const full = () => gatewayCtx(depsOn, { [BROKER_HEADERS.credential]: token });
    let before = await snapshot(true);
    expect(await call('gateway', 'input.sendText', full())).toBe('ok');
    await waitFor('the typed bytes', () => paneBytes(root, FIXTURE_PANES)[TARGET]!.includes('typed-by-the-attack'), 20_000, 100);
    expect(changes(before, await snapshot()).panes).toEqual([TARGET]);
    before = await snapshot(true);
    expect(await call('gateway', 'notes.create', full())).toBe('ok');
    expect(changes(before, await snapshot()).stores).toContain('notes');
    before = await snapshot(true);
    expect(await call('gateway', 'lifecycle.resize', full())).toBe('ok');
    expect(changes(before, await snapshot()).panes).toEqual(['(session list)']);
    before = await snapshot(true);
    expect(await call('gateway', 'lifecycle.restart', full())).toBe('ok');
    expect(changes(before, await snapshot()).panes).toEqual(['(session list)']);
    before = await snapshot(true);
    expect(await call('gateway', 'lifecycle.start', full())).toBe('ok');
    expect(changes(before, await snapshot()).panes).toEqual(['(session list)']);
    before = await snapshot(true);
    expect(await call('gateway', 'projects.deployPreview', full())).toBe('ok');
    expect(changes(before, await snapshot()).processes).toEqual(['deploy']);
    // A fresh autonomous watch whose verifier profile runs once the done marker shows.
    const owner = createCallerFactory(ROLE_ROUTERS.gateway)(full());
    await broker.server.newSession('agent-control', recorder('agent-control', 'CONTROL-DONE'), { width: 100, height: 20 });
    await owner.supervisor.watch({ session: 'agent-control', done_marker: 'NOT-YET' });
    await owner.supervisor2.setPolicy({ session: 'agent-control', mode: 'approved_auto_continue', approved_template: 'y' });
    await owner.supervisor.setVerifierPolicy({ session: 'agent-control', profile: 'mark' });
    before = await snapshot(true);
    await owner.supervisor.watch({ session: 'agent-control', done_marker: 'CONTROL-DONE' });
    expect(changes(before, await snapshot()).processes).toEqual(['verify']);
  }, 120_000);
});
