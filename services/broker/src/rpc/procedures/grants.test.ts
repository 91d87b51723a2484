// Guards dashboard grants end to end (real tmux, real grants.db): a grant admits exactly the session it was pinned to, until revoked, expired or the session is replaced; sensitive names never; every change is audited with its user; a denial reveals nothing.
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readAppErrorData } from '@terminal-mcp/contract';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { startTmuxServer, type TmuxTestServer } from '../../../../../test/src/helpers/tmux-server.js';
import { configSchema, type BrokerConfig } from '../../config/schema.js';
import type { BrokerDeps } from '../deps.js';
import type { SessionFacts } from '../../effects/tmux/types.js';
import { ensureSocketDir } from '../../effects/socket-files.js';
import { createTmuxAdapter, type ControlModeTmuxAdapter } from '../../effects/tmux/adapter.js';
import { createContextInner } from '../context.js';
import { gatewayRouter } from '../roles/gateway.js';
import { observerRouter } from '../roles/observer.js';
import { webRouter } from '../roles/web.js';
import { serveRoles } from '../serve.js';
import { createCallerFactory, router } from '../trpc.js';
import { operatorToken as tokenFor } from '../../webauth/operator-token.testkit.js';
import { grants } from './grants.js';
import { testDeps, withConfig } from '../../testing/deps.testkit.js';

const WHITELISTED = 'allowed-grants';
const PRIVATE = 'build-private';
const SENSITIVE = 'ops-ssh';
const MISSING = 'no-such-session';
const PRIVATE_MARK = 'private-mark-5e1c';

let server: TmuxTestServer;
let tmux: ControlModeTmuxAdapter;
let root: string;
let deps: BrokerDeps;

/** Reads: `allowed-*`. Input: only what a grant admits (the input allowlist names nothing here). */
function configWith(overrides: Record<string, unknown> = {}): BrokerConfig {
  return configSchema.parse({
    allowed_session_patterns: ['allowed-*'],
    permissions: { terminal_read: true, terminal_input: true },
    input_policy: { allowed_session_patterns: ['input-only-*'] },
    log_level: 'silent',
    ...overrides,
  });
}

async function printingSession(name: string, mark: string): Promise<void> {
  await server.newSession(name, `echo ${mark}; exec sleep 3600`);
  await vi.waitFor(async () => expect(await server.tmux(['capture-pane', '-p', '-t', `=${name}:`])).toContain(mark), { timeout: 60_000, interval: 50 });
}

beforeAll(async () => {
  server = await startTmuxServer();
  tmux = createTmuxAdapter({ socketName: server.socketName, configFile: '/dev/null' });
  expect(await tmux.waitUntilConnected(10_000)).toBe(true);
  await printingSession(WHITELISTED, 'allowed-mark');
  await printingSession(PRIVATE, PRIVATE_MARK);
  await printingSession(SENSITIVE, 'ssh-mark');
});
afterAll(async () => {
  await tmux?.close();
  await server?.kill();
});

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'tmcp-grants-proc-'));
  deps = testDeps({ config: configWith(), tmux, stateDir: join(root, 'state'), log: pino({ level: 'silent' }), info: { version: 'test', startedAt: new Date(), tmuxSocket: server.socketName } });
});
afterEach(() => {
  deps.stores.close();
  rmSync(root, { recursive: true, force: true });
});

/** The dashboard's server acting for `username` (its session token travels with the call). */
/** What the operator's grant admits for this live session now (THE gate's answer). */
const grantFor = (d: BrokerDeps, s: SessionFacts) => d.access.grantOf(s.name, s);
const operatorToken = (username: string, opts: { expired?: boolean } = {}) => tokenFor(deps, username, opts);
const web = (username = 'alice') => createCallerFactory(webRouter)(createContextInner({ role: 'web', deps, operatorToken: operatorToken(username) }));
const webWithToken = (operatorToken: string | undefined) => createCallerFactory(webRouter)(createContextInner({ role: 'web', deps, actor: 'web:alice', operatorToken }));
const gateway = () => createCallerFactory(gatewayRouter)(createContextInner({ role: 'gateway', deps }));
const summaryOf = async (name: string) => (await gateway().sessions.list({})).sessions.find((s) => s.name === name)!;

/** Our error code (or the tRPC code for schema refusals) and the message a caller sees. */
async function refusal(p: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await p;
  } catch (err) {
    const app = readAppErrorData((err as { cause?: unknown }).cause);
    return { code: app?.code ?? `trpc:${(err as { code?: string }).code}`, message: (err as Error).message };
  }
  throw new Error('expected a refusal');
}

describe('read grants', { timeout: 180_000 }, () => {
  it('admits a non-whitelisted session to the gateway until revoked', async () => {
    expect((await refusal(gateway().sessions.tail({ session: PRIVATE }))).code).toBe('SESSION_NOT_ALLOWED');

    const { grant } = await web('alice').grants.set({ session: PRIVATE, read: true, input: false });
    expect(grant).toMatchObject({ session: PRIVATE, read: true, input: false, state: 'active', granted_by: 'alice', expires_at: null });
    expect((await gateway().sessions.tail({ session: PRIVATE })).text).toContain(PRIVATE_MARK);
    expect((await gateway().sessions.status({ session: PRIVATE })).session).toBe(PRIVATE);
    expect((await gateway().sessions.capture({ session: PRIVATE })).text).toContain(PRIVATE_MARK);
    const batch = await gateway().sessions.batchInspect({});
    expect(batch.results.map((r) => r.session)).toContain(PRIVATE);
    expect(batch.results.map((r) => r.session)).not.toContain(SENSITIVE);

    expect(await web('bob').grants.revoke({ session: PRIVATE })).toEqual({ revoked: true });
    expect((await refusal(gateway().sessions.tail({ session: PRIVATE }))).code).toBe('SESSION_NOT_ALLOWED');
    expect(await web('bob').grants.revoke({ session: PRIVATE })).toEqual({ revoked: false });
  });

  it('admits nothing while terminal_read is off', async () => {
    await web('alice').grants.set({ session: PRIVATE, read: true, input: true });
    deps = withConfig(deps, configWith({ permissions: { terminal_read: false, terminal_input: true } }));
    expect((await refusal(gateway().sessions.tail({ session: PRIVATE }))).code).toBe('READ_DISABLED');
    expect(await summaryOf(PRIVATE)).toMatchObject({ read_allowed: false, read_granted: true, input_allowed: false, input_granted: true });
  });

  it('stops admitting when the time box ends', async () => {
    const { grant } = await web('alice').grants.set({ session: PRIVATE, read: true, input: false, expires_in_s: 1 });
    expect(Date.parse(grant!.expires_at!) - Date.now()).toBeLessThanOrEqual(1000);
    expect((await gateway().sessions.tail({ session: PRIVATE })).text).toContain(PRIVATE_MARK);
    await new Promise((r) => setTimeout(r, 1100));
    expect((await refusal(gateway().sessions.tail({ session: PRIVATE }))).code).toBe('SESSION_NOT_ALLOWED');
    const listed = (await web().grants.list()).sessions.find((s) => s.name === PRIVATE)!;
    expect(listed).toMatchObject({ read_allowed: false, read_granted: false, grant: { state: 'expired' } });

    expect((await refusal(web('alice').grants.set({ session: PRIVATE, read: true, input: false, expires_at: new Date(Date.now() - 1000).toISOString() }))).code).toBe('INVALID_ARGUMENT');
    expect((await refusal(web('alice').grants.set({ session: PRIVATE, read: true, input: false, expires_in_s: 5, expires_at: new Date(Date.now() + 60_000).toISOString() }))).code).toBe('trpc:BAD_REQUEST');
  });

  it('loses the grant when the session is killed and recreated under the same name', async () => {
    const name = 'recreated-build';
    await printingSession(name, 'first-life');
    await web('alice').grants.set({ session: name, read: true, input: true });
    expect((await gateway().sessions.tail({ session: name })).text).toContain('first-life');

    await server.tmux(['kill-session', '-t', `=${name}`]);
    const orphaned = (await web().grants.list()).orphaned_grants.find((g) => g.session === name);
    expect(orphaned).toMatchObject({ state: 'stale', read: true, input: true });

    await printingSession(name, 'second-life');
    expect((await refusal(gateway().sessions.tail({ session: name }))).code).toBe('SESSION_NOT_ALLOWED');
    expect(await summaryOf(name)).toMatchObject({ read_allowed: false, read_granted: false, input_granted: false, input_allowed: false });
    const listed = (await web().grants.list()).sessions.find((s) => s.name === name)!;
    expect(listed.grant).toMatchObject({ state: 'stale' });
    expect(grantFor(deps, (await tmux.listSessions()).find((s) => s.name === name)!)).toBeNull();

    // A new grant pins the new session.
    await web('alice').grants.set({ session: name, read: true, input: false });
    expect((await gateway().sessions.tail({ session: name })).text).toContain('second-life');
    await server.tmux(['kill-session', '-t', `=${name}`]);
  });

  it('sessions.list reflects each grant change, rename and kill by the very next call', async () => {
    const name = 'listed-build';
    await printingSession(name, 'listed-mark');
    try {
      expect(await summaryOf(name)).toMatchObject({ read_allowed: false, read_granted: false });
      await web('alice').grants.set({ session: name, read: true, input: false });
      expect(await summaryOf(name)).toMatchObject({ read_allowed: true, read_granted: true });
      await web('alice').grants.revoke({ session: name });
      expect(await summaryOf(name)).toMatchObject({ read_allowed: false, read_granted: false });

      // A grant is pinned to its name: renamed, the session is no longer granted.
      await web('alice').grants.set({ session: name, read: true, input: false });
      expect(await summaryOf(name)).toMatchObject({ read_granted: true });
      await server.tmux(['rename-session', '-t', `=${name}`, 'renamed-build']);
      const afterRename = (await gateway().sessions.list({})).sessions;
      expect(afterRename.map((s) => s.name)).not.toContain(name);
      expect(afterRename.find((s) => s.name === 'renamed-build')).toMatchObject({ read_allowed: false, read_granted: false });
      expect((await refusal(gateway().sessions.tail({ session: 'renamed-build' }))).code).toBe('SESSION_NOT_ALLOWED');

      await server.tmux(['kill-session', '-t', '=renamed-build']);
      expect((await gateway().sessions.list({})).sessions.map((s) => s.name)).not.toContain('renamed-build');
    } finally {
      await server.tmux(['kill-session', '-t', `=${name}`]).catch(() => undefined);
      await server.tmux(['kill-session', '-t', '=renamed-build']).catch(() => undefined);
    }
  });

  it('refuses a grant for a session replaced since the operator looked (expect)', async () => {
    const seen = await summaryOf(PRIVATE);
    expect((await refusal(web('alice').grants.set({ session: PRIVATE, read: true, input: false, expect: { session_id: '$999', created: seen.created } }))).code).toBe('IDENTITY_CHANGED');
    const ok = await web('alice').grants.set({ session: PRIVATE, read: true, input: false, expect: { session_id: seen.session_id, created: seen.created } });
    expect(ok.grant?.pinned.session_id).toBe(seen.session_id);
    expect((await refusal(web('alice').grants.set({ session: MISSING, read: true, input: false }))).code).toBe('SESSION_NOT_FOUND');
  });
});

describe('input grants', { timeout: 180_000 }, () => {
  it('require read, and go when read goes', async () => {
    expect((await refusal(web('alice').grants.set({ session: PRIVATE, read: false, input: true }))).code).toBe('trpc:BAD_REQUEST');
    expect((await refusal(web('alice').grants.bulkSet({ sessions: [PRIVATE], read: false, input: true }))).code).toBe('trpc:BAD_REQUEST');

    await web('alice').grants.set({ session: PRIVATE, read: true, input: true });
    expect(grantFor(deps, (await tmux.listSessions()).find((s) => s.name === PRIVATE)!)).toEqual({ read: true, input: true });
    expect(await web('alice').grants.set({ session: PRIVATE, read: false, input: false })).toEqual({ grant: null });
    expect(await summaryOf(PRIVATE)).toMatchObject({ read_granted: false, input_granted: false, input_allowed: false });

    await web('alice').grants.set({ session: PRIVATE, read: true, input: true });
    await web('alice').grants.revoke({ session: PRIVATE });
    expect(grantFor(deps, (await tmux.listSessions()).find((s) => s.name === PRIVATE)!)).toBeNull();
  });

  it('with input_policy unset, input follows the read whitelist: a read grant alone never admits input', async () => {
    deps = withConfig(deps, configSchema.parse({ allowed_session_patterns: ['allowed-*'], permissions: { terminal_read: true, terminal_input: true }, log_level: 'silent' }));
    try {
      expect(await summaryOf(WHITELISTED)).toMatchObject({ read_allowed: true, input_allowed: true });
      await web('alice').grants.set({ session: PRIVATE, read: true, input: false });
      expect(await summaryOf(PRIVATE)).toMatchObject({ read_allowed: true, read_granted: true, input_allowed: false, input_granted: false });
      await web('alice').grants.set({ session: PRIVATE, read: true, input: true });
      expect(await summaryOf(PRIVATE)).toMatchObject({ read_allowed: true, input_allowed: true, input_granted: true });
    } finally {
      await web('alice').grants.revoke({ session: PRIVATE });
      deps = withConfig(deps, configWith());
    }
  });

  it('are reported in sessions.list as read_granted, input_allowed and input_granted', async () => {
    expect(await summaryOf(WHITELISTED)).toMatchObject({ read_allowed: true, read_granted: false, input_allowed: false, input_granted: false });
    expect(await summaryOf(PRIVATE)).toMatchObject({ read_allowed: false, read_granted: false, input_allowed: false, input_granted: false });

    await web('alice').grants.set({ session: PRIVATE, read: true, input: false });
    expect(await summaryOf(PRIVATE)).toMatchObject({ read_allowed: true, read_granted: true, input_allowed: false, input_granted: false });
    await web('alice').grants.set({ session: PRIVATE, read: true, input: true });
    expect(await summaryOf(PRIVATE)).toMatchObject({ read_allowed: true, read_granted: true, input_allowed: true, input_granted: true });
    // Input grants are allowed on whitelisted sessions: the whitelist admits reading only.
    await web('alice').grants.set({ session: WHITELISTED, read: true, input: true });
    expect(await summaryOf(WHITELISTED)).toMatchObject({ read_allowed: true, read_granted: true, input_allowed: true, input_granted: true });
    expect((await gateway().sessions.list({ readable_only: true })).sessions.map((s) => s.name)).toEqual([WHITELISTED, PRIVATE].sort());

    // The input allowlist admits without a grant; the global switch, deny patterns and copy mode still close input.
    deps = withConfig(deps, configWith({ input_policy: { allowed_session_patterns: ['*'] } }));
    await web('alice').grants.revoke({ session: WHITELISTED });
    expect(await summaryOf(WHITELISTED)).toMatchObject({ input_allowed: true, input_granted: false });
    deps = withConfig(deps, configWith({ input_policy: { allowed_session_patterns: [], denied_session_patterns: ['build-*'] } }));
    expect(await summaryOf(PRIVATE)).toMatchObject({ read_allowed: true, input_allowed: false, input_granted: true });
    deps = withConfig(deps, configWith({ permissions: { terminal_read: true, terminal_input: false } }));
    expect(await summaryOf(PRIVATE)).toMatchObject({ read_allowed: true, input_allowed: false, input_granted: true });
    deps = withConfig(deps, configWith());
    await server.tmux(['copy-mode', '-t', `=${PRIVATE}:`]);
    try {
      await vi.waitFor(async () => expect((await summaryOf(PRIVATE)).in_copy_mode).toBe(true), { timeout: 60_000 });
      expect(await summaryOf(PRIVATE)).toMatchObject({ input_allowed: false, input_granted: true });
    } finally {
      await server.tmux(['send-keys', '-t', `=${PRIVATE}:`, '-X', 'cancel']);
    }
  });
});

describe('sensitive names', { timeout: 180_000 }, () => {
  it('can never be granted, alone or in bulk', async () => {
    const refused = await refusal(web('alice').grants.set({ session: SENSITIVE, read: true, input: false }));
    expect(refused.code).toBe('FORBIDDEN');
    expect(refused.message).toMatch(/sensitive|can never be granted/);

    const bulk = await web('alice').grants.bulkSet({ sessions: [PRIVATE, SENSITIVE, MISSING], read: true, input: true });
    expect(bulk.results.map((r) => [r.session, r.ok, r.ok ? r.grant?.state : r.error_code])).toEqual([
      [PRIVATE, true, 'active'],
      [SENSITIVE, false, 'FORBIDDEN'],
      [MISSING, false, 'SESSION_NOT_FOUND'],
    ]);
    expect((await refusal(gateway().sessions.tail({ session: SENSITIVE }))).code).toBe('SESSION_NOT_ALLOWED');
    expect((await web().grants.list()).sessions.find((s) => s.name === SENSITIVE)).toMatchObject({ sensitive: true, grantable: false, grant: null });
  });
});

describe('grant events', { timeout: 180_000 }, () => {
  it('record every change with the dashboard user, newest first, paged', async () => {
    await web('alice').grants.set({ session: PRIVATE, read: true, input: false });
    await web('bob').grants.set({ session: PRIVATE, read: true, input: true, expires_in_s: 600 });
    await web('carol').grants.bulkSet({ sessions: [WHITELISTED, SENSITIVE], read: true, input: false });
    await web('dave').grants.revoke({ session: PRIVATE });

    const page1 = await web().grants.events({ limit: 2 });
    expect(page1.events.map((e) => [e.actor, e.action, e.session])).toEqual([
      ['dave', 'revoke', PRIVATE],
      ['carol', 'grant', WHITELISTED],
    ]);
    expect(page1.next_cursor).toBe(page1.events[1]!.id);
    const page2 = await web().grants.events({ limit: 2, cursor: page1.next_cursor! });
    expect(page2.events.map((e) => [e.actor, e.after.input, e.before?.input ?? null])).toEqual([
      ['bob', true, false],
      ['alice', false, null],
    ]);
    expect(page2.events[0]!.after.expires_at).not.toBeNull();
    expect((await web().grants.events({ session: PRIVATE })).events).toHaveLength(3);
    // The refused sensitive grant changed nothing and is not a change event.
    expect((await web().grants.events({ session: SENSITIVE })).events).toEqual([]);
    // No input names the actor: the broker takes it from the operator's session.
    expect((await refusal(web().grants.revoke({ actor: 'mallory', session: PRIVATE } as never))).code).toBe('trpc:BAD_REQUEST');
  });
});

describe('who may grant', () => {
  it('only the web role: the procedures refuse any other role even if composed elsewhere', async () => {
    expect('grants' in gatewayRouter._def.record).toBe(false);
    expect('grants' in observerRouter._def.record).toBe(false);
    const misplaced = createCallerFactory(router({ grants }))(createContextInner({ role: 'gateway', deps, operatorToken: operatorToken('alice') }));
    expect((await refusal(misplaced.grants.set({ session: PRIVATE, read: true, input: false }))).code).toBe('FORBIDDEN');
    expect((await refusal(misplaced.grants.list())).code).toBe('FORBIDDEN');
  });

  it('only a signed-in operator: an absent, forged or expired session token changes nothing', async () => {
    const forged = 'a'.repeat(32);
    for (const token of [undefined, forged, operatorToken('alice', { expired: true }), 'not a token']) {
      const caller = webWithToken(token);
      expect((await refusal(caller.grants.set({ session: PRIVATE, read: true, input: true })))).toEqual({ code: 'UNAUTHENTICATED', message: 'sign in to the dashboard first' });
      expect((await refusal(caller.grants.bulkSet({ sessions: [PRIVATE], read: true, input: true }))).code).toBe('UNAUTHENTICATED');
      expect((await refusal(caller.grants.revoke({ session: WHITELISTED }))).code).toBe('UNAUTHENTICATED');
      expect((await refusal(caller.grants.events({}))).code).toBe('UNAUTHENTICATED');
      expect((await refusal(caller.grants.list())).code).toBe('UNAUTHENTICATED');
      expect((await refusal(caller.input.sendText({ session: WHITELISTED, text: 'x' }))).code).toBe('UNAUTHENTICATED');
    }
    expect(grantFor(deps, (await tmux.listSessions()).find((s) => s.name === PRIVATE)!)).toBeNull();
    expect((await web().grants.events({})).events).toEqual([]);
  });

  it('records the operator the token belongs to, whatever the actor header says', async () => {
    const bobToken = operatorToken('bob');
    const caller = createCallerFactory(webRouter)(createContextInner({ role: 'web', deps, actor: 'web:alice', operatorToken: bobToken }));
    await caller.grants.set({ session: PRIVATE, read: true, input: false });
    const [event] = (await web().grants.events({ limit: 1 })).events;
    expect(event).toMatchObject({ actor: 'bob', action: 'grant', session: PRIVATE });
  });

  it('on the wire: web.sock refuses a grant that names a user without their session', async () => {
    const socketDir = join(root, 'run-grants');
    ensureSocketDir(socketDir);
    const servers = await serveRoles(deps, socketDir);
    const post = (path: string, body: unknown, headers: Record<string, string>) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = request({ socketPath: servers.sockets.web, path: `/${path}`, method: 'POST', headers: { 'content-type': 'application/json', ...headers } }, (res) => {
          let text = '';
          res.setEncoding('utf8').on('data', (c: string) => (text += c));
          res.on('end', () => resolve({ status: res.statusCode!, body: text }));
        });
        req.on('error', reject);
        req.end(JSON.stringify(body));
      });
    try {
      // The attack before the fix: any process that reaches web.sock grants as "alice".
      const asAlice = await post('grants.set', { actor: 'alice', session: PRIVATE, read: true, input: true }, { 'x-terminal-mcp-actor': 'alice' });
      expect(asAlice.status).toBe(401);
      const noToken = await post('grants.set', { session: PRIVATE, read: true, input: true }, { 'x-terminal-mcp-actor': 'alice' });
      expect(noToken.status).toBe(401);
      expect(JSON.parse(noToken.body)).toMatchObject({ error: { data: { app: { code: 'UNAUTHENTICATED' } } } });
      const forged = await post('grants.set', { session: PRIVATE, read: true, input: true }, { 'x-terminal-mcp-operator-session': 'b'.repeat(32) });
      expect(forged.status).toBe(401);
      expect(grantFor(deps, (await tmux.listSessions()).find((s) => s.name === PRIVATE)!)).toBeNull();

      const ok = await post('grants.set', { session: PRIVATE, read: true, input: false }, { 'x-terminal-mcp-operator-session': operatorToken('carol') });
      expect(ok.status).toBe(200);
      expect((await web().grants.events({ limit: 1 })).events[0]).toMatchObject({ actor: 'carol', session: PRIVATE });
    } finally {
      await servers.close();
    }
  });
});

describe('a denied session reveals nothing', { timeout: 180_000 }, () => {
  it('answers every existing non-granted session identically; a name no session has is SESSION_NOT_FOUND (issue 16), also on the wire', async () => {
    // A stale grant under a name whose session is gone admits nothing: the name is missing.
    await printingSession('doomed-grant', 'doomed');
    await web('alice').grants.set({ session: 'doomed-grant', read: true, input: false });
    await server.tmux(['kill-session', '-t', '=doomed-grant']);

    for (const call of [
      (session: string) => gateway().sessions.tail({ session }),
      (session: string) => gateway().sessions.capture({ session }),
      (session: string) => gateway().sessions.status({ session }),
    ]) {
      expect(await refusal(call(PRIVATE))).toEqual({ code: 'SESSION_NOT_ALLOWED', message: 'access to this session is denied' });
      expect(await refusal(call(MISSING))).toMatchObject({ code: 'SESSION_NOT_FOUND' });
      expect(await refusal(call('doomed-grant'))).toMatchObject({ code: 'SESSION_NOT_FOUND' });
    }
    const batch = await gateway().sessions.batchInspect({ sessions: [PRIVATE, MISSING] });
    expect(batch.results.map(({ session: _s, ...rest }) => ('message' in rest ? { ok: rest.ok, error_code: rest.error_code } : rest))).toEqual([
      { ok: false, error_code: 'SESSION_NOT_ALLOWED' },
      { ok: false, error_code: 'SESSION_NOT_FOUND' },
    ]);
    expect(batch.results[0]).toMatchObject({ message: 'access to this session is denied' });

    const socketDir = join(root, 'run');
    ensureSocketDir(socketDir);
    const servers = await serveRoles(deps, socketDir);
    try {
      const tail = (session: string) =>
        new Promise<{ status: number; body: string }>((resolve, reject) => {
          const path = `/sessions.tail?input=${encodeURIComponent(JSON.stringify({ session }))}`;
          const req = request({ socketPath: servers.sockets.gateway, path, method: 'GET' }, (res) => {
            let body = '';
            res.setEncoding('utf8');
            res.on('data', (c: string) => (body += c));
            res.on('end', () => resolve({ status: res.statusCode!, body }));
          });
          req.on('error', reject);
          req.end();
        });
      const existing = await tail(PRIVATE);
      expect(existing.status).toBe(403);
      expect(existing.body).not.toContain(PRIVATE_MARK);
      const missing = await tail(MISSING);
      expect(missing.status).toBe(404);
      expect(missing.body).not.toContain(PRIVATE_MARK);
    } finally {
      await servers.close();
    }
  });
});
