// Performs issue 24's attacks on the broker's procedures (real tmux, real stores, a real gateway OAuth token the broker verifies itself): a client-chosen verifier command, typing through project_dispatch with a read-only grant, state changes with a read-only grant, a claimed OAuth identity, and the supervisor auto-answering prompts that only look harmless.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BROKER_HEADERS, NOTE_LIMITS, readAppErrorData } from '@terminal-mcp/contract';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { waitFor } from '../../../../test/src/helpers/wait-for.js';
import { configSchema, type BrokerConfig } from '../config/schema.js';
import { describeAuthorization, registerClient } from '../oauth/clients.js';
import { gatewayAccessToken } from '../oauth/gateway-token.testkit.js';
import { exchangeToken } from '../oauth/tokens.js';
import { contextFromRequest } from '../rpc/context.js';
import type { BrokerDeps } from '../rpc/deps.js';
import { gatewayRouter } from '../rpc/roles/gateway.js';
import { createCallerFactory } from '../rpc/trpc.js';
import { startLiveTestBroker, type LiveTestBroker } from '../testing/live-broker.testkit.js';
import { withConfig } from '../testing/deps.testkit.js';

let root: string;
let repo: string;
let broker: LiveTestBroker;
let readOnly: string;
let full: string;

function gitRepo(dir: string): string {
  execFileSync('git', ['init', '-q', dir]);
  writeFileSync(join(dir, 'a.txt'), 'a\n');
  execFileSync('git', ['-C', dir, 'add', 'a.txt']);
  execFileSync('git', ['-C', dir, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'a']);
  return dir;
}

function config(input: boolean): BrokerConfig {
  return configSchema.parse({
    permissions: { terminal_read: true, terminal_input: input },
    allowed_session_patterns: ['agent-*'],
    input_policy: { allowed_session_patterns: ['agent-*'] },
    observer: { source_roots: [{ name: 'app', path: repo }] },
    project_profiles: [
      {
        name: 'app',
        repo: 'app',
        sessions: ['agent-project'],
        deploy_preview: { preview_safe: true, commands: [{ id: 'mark', argv: ['touch', join(root, 'deploy-ran')] }] },
      },
    ],
    supervisor: { enabled: false, v2_enabled: true, poll_interval_seconds: 3600, idle_threshold_seconds: 1, max_iterations: 1000 },
  });
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'tmcp-authz-'));
  repo = gitRepo(join(root, 'repo'));
  broker = await startLiveTestBroker({ config: config(true), stateDir: join(root, 'state'), graceMs: 150 });
  readOnly = await gatewayAccessToken(broker.deps, { scope: 'terminal:read', username: 'alice', clientName: 'ChatGPT' });
  full = await gatewayAccessToken(broker.deps, { scope: 'terminal:read terminal:input', username: 'alice', clientName: 'ChatGPT' });
}, 60_000);

afterAll(async () => {
  await broker?.close();
  if (root) rmSync(root, { recursive: true, force: true });
});

/** A gateway caller as the broker sees a request: headers only, as the gateway sends them. */
function gateway(headers: Record<string, string>, deps: BrokerDeps = broker.deps) {
  return createCallerFactory(gatewayRouter)(contextFromRequest('gateway', deps, headers));
}
const withToken = (token: string, deps?: BrokerDeps) => gateway({ [BROKER_HEADERS.credential]: token }, deps);

async function outcome(p: Promise<unknown>): Promise<{ code?: string; value?: unknown }> {
  try {
    return { value: await p };
  } catch (err) {
    return { code: (readAppErrorData((err as { cause?: unknown }).cause) ?? readAppErrorData(err))?.code ?? 'UNKNOWN' };
  }
}

const screen = (name: string) => broker.server.tmux(['capture-pane', '-p', '-t', `=${name}:`]);

describe('finding 1: no client-chosen command ever runs', () => {
  it.each([
    ['a read-only token, input on', () => withToken(readOnly)],
    ['a read-only token, input off', () => withToken(readOnly, withConfig(broker.deps, config(false)))],
    ['a client with every scope', () => withToken(full)],
  ])('the verifier never runs a test_command given by %s', async (_label, as) => {
    const marker = join(root, `rce-${Math.random().toString(36).slice(2)}`);
    const name = `agent-rce-${Math.random().toString(36).slice(2, 8)}`;
    await broker.server.newSession(name, "bash --norc --noprofile -c 'echo ALREADY-ON-SCREEN; sleep 600'", { width: 100, height: 20 });
    await waitFor('the line on screen', async () => (await screen(name)).includes('ALREADY-ON-SCREEN'), 20_000, 100);
    const client = as();
    await outcome(client.supervisor.watch({ session: name, done_marker: 'NOT-ON-SCREEN-YET' }));
    await outcome(client.supervisor2.setPolicy({ session: name, mode: 'approved_auto_continue', approved_template: 'continue' }));
    await outcome(client.supervisor.setVerifierPolicy({ session: name, worktree: repo, test_command: ['sh', '-c', `id > ${marker}`] } as never));
    await outcome(client.supervisor.watch({ session: name, done_marker: 'ALREADY-ON-SCREEN' }));
    await outcome(client.supervisor.runOnce({}));
    // The verifier runs inside the evaluation; give a late one time to write.
    await new Promise((r) => setTimeout(r, 500));
    expect(existsSync(marker)).toBe(false);
  });
});

describe('finding 2: a read-only grant types through no path', () => {
  it('project_dispatch answers BLOCKED / INPUT_NOT_ALLOWED, audits it, and types nothing', async () => {
    await broker.server.newSession('agent-project', 'cat', { width: 100, height: 20 });
    const result = await outcome(withToken(readOnly).projects.dispatch({ project: 'app', task: 'echo DISPATCHED-BY-READER', idempotency_key: 'k-1' }));
    expect(result.value).toMatchObject({ receipt: 'BLOCKED', error_code: 'INPUT_NOT_ALLOWED' });
    await new Promise((r) => setTimeout(r, 300));
    expect(await screen('agent-project')).not.toContain('DISPATCHED-BY-READER');
    const rows = broker.deps.stores.audit.list({ limit: 5 });
    expect(rows.find((r) => r.tool === 'terminal_send_task' && r.sessionName === 'agent-project')).toMatchObject({ decision: 'BLOCKED', errorCode: 'INPUT_NOT_ALLOWED' });
  });
});

describe('finding 3: a read-only grant changes nothing', () => {
  it('runs no deploy preview', async () => {
    expect((await outcome(withToken(readOnly).projects.deployPreview({ project: 'app', command_id: 'mark' }))).code).toBe('INPUT_NOT_ALLOWED');
    expect(existsSync(join(root, 'deploy-ran'))).toBe(false);
  });

  it('writes no note, binding, watch or policy, and approves nothing', async () => {
    await broker.server.newSession('agent-state', "bash --norc --noprofile -c 'read -p \"Go on? [y/N] \" a; echo answer=$a; sleep 600'", { width: 100, height: 20 });
    const reader = withToken(readOnly);
    expect((await outcome(reader.notes.create({ title: 'planted' }))).code).toBe('WRITE_NOT_ALLOWED');
    expect((await outcome(reader.bindings.bind({ binding: 'planted', session: 'agent-state' }))).code).toBe('WRITE_NOT_ALLOWED');
    expect((await outcome(reader.supervisor.watch({ session: 'agent-state' }))).code).toBe('WRITE_NOT_ALLOWED');
    expect(broker.deps.stores.notes.facets().total).toBe(0);
    expect(broker.deps.stores.bindings.get('planted')).toBeUndefined();

    // Another client queues an action; the reader cannot approve it.
    const writer = withToken(full);
    await writer.supervisor.watch({ session: 'agent-state' });
    await writer.supervisor2.setPolicy({ session: 'agent-state', mode: 'suggest_only' });
    expect((await outcome(reader.supervisor2.setPolicy({ session: 'agent-state', mode: 'approved_auto_continue', approved_template: 'y' }))).code).toBe('INPUT_NOT_ALLOWED');
    let eventId = 0;
    await vi.waitFor(
      async () => {
        await writer.supervisor.runOnce({});
        const e = (await writer.supervisor.listEvents({ watch_key: 'session:agent-state' })).events.find((x) => x.event_type === 'attention_required');
        expect(e).toBeDefined();
        eventId = e!.id;
      },
      { timeout: 60_000, interval: 200 },
    );
    const action = await writer.supervisor2.claimEvent({ event_id: eventId });
    await writer.supervisor2.submitDecision({ action_id: action.id, prompt: 'y' });
    expect((await outcome(reader.supervisor2.reviewAction({ action_id: action.id, decision: 'approve' }))).code).toBe('INPUT_NOT_ALLOWED');
    expect((await writer.supervisor2.listActions({ watch_key: 'session:agent-state' })).actions[0]).toMatchObject({ state: 'decided' });
  });
});

describe('finding 4: identities come from authentication, never from a claimed name', () => {
  it('a client naming itself like an OAuth connector is not that connector and reads none of its audit', async () => {
    await broker.server.newSession('agent-ident', 'cat', { width: 100, height: 20 });
    const real = withToken(full);
    const sent = await real.input.sendText({ session: 'agent-ident', text: 'real connector', dry_run: true });
    const realActor = broker.deps.stores.audit.list({ limit: 50 }).find((r) => r.id === sent.audit_id)!.actor;
    expect(realActor).toMatch(/^gateway:oauth:ChatGPT@alice\//);

    // No credential, a self-chosen name: the HTTP gateway sends `anonymous` or `token`,
    // a process on the socket sends nothing; the claimed name is in the actor header.
    for (const principal of [undefined, 'anonymous', 'token', 'stdio:alice']) {
      const claimed = gateway({ [BROKER_HEADERS.actor]: 'oauth:ChatGPT@alice', ...(principal ? { [BROKER_HEADERS.principal]: principal } : {}) });
      const own = await outcome(claimed.input.sendText({ session: 'agent-ident', text: 'impostor', dry_run: true }));
      const row = broker.deps.stores.audit.list({ limit: 50 }).find((r) => r.id === (own.value as { audit_id: number }).audit_id)!;
      expect(row.actor, String(principal)).not.toContain('oauth');
      const view = await outcome(claimed.audit.listInput({ limit: 100 }));
      if (principal === 'anonymous') expect(view.code).toBe('FORBIDDEN');
      else expect((view.value as { entries: { actor: string }[] }).entries.map((e) => e.actor)).not.toContain(realActor);
    }
  });

  it('two OAuth clients registered under one name are two identities', async () => {
    const twin = await gatewayAccessToken(broker.deps, { scope: 'terminal:read terminal:input', username: 'alice', clientName: 'ChatGPT' });
    const mine = await withToken(full).input.sendText({ session: 'agent-ident', text: 'mine', dry_run: true });
    const theirs = await withToken(twin).audit.listInput({ limit: 100 });
    expect(theirs.entries.map((e) => e.id)).not.toContain(mine.audit_id);
  });
});

describe('finding 5: auto-continue answers only what it recognises', () => {
  async function autoAnswer(name: string, prompt: string): Promise<{ typed: boolean; state: string }> {
    await broker.server.newSession(name, `bash --norc --noprofile -c 'read -p "${prompt} " a; echo "answer=$a"; sleep 600'`, { width: 120, height: 20 });
    const client = withToken(full);
    await client.supervisor.watch({ session: name });
    await client.supervisor2.setPolicy({ session: name, mode: 'approved_auto_continue', approved_template: 'y' });
    let eventId = 0;
    await vi.waitFor(
      async () => {
        await client.supervisor.runOnce({});
        const e = (await client.supervisor.listEvents({ watch_key: `session:${name}` })).events.find((x) => x.event_type === 'attention_required');
        expect(e).toBeDefined();
        eventId = e!.id;
      },
      { timeout: 60_000, interval: 200 },
    );
    const claim = await outcome(client.supervisor2.claimEvent({ event_id: eventId }));
    if (claim.value !== undefined) {
      const id = (claim.value as { id: number }).id;
      await outcome(client.supervisor2.submitDecision({ action_id: id, prompt: 'y' }));
      await outcome(client.supervisor2.executeSend({ action_id: id }));
    }
    await new Promise((r) => setTimeout(r, 400));
    const { actions } = await client.supervisor2.listActions({ watch_key: `session:${name}` });
    return { typed: (await screen(name)).includes('answer=y'), state: actions[0]?.state ?? 'none' };
  }

  it.each([
    ['two spaces', 'Are you  sure? [y/N]'],
    ['a Cyrillic o', 'Are y\u043Eu sure? This cann\u043Et be und\u043Ene [y/N]'],
    ['split rm flags', 'Run rm -r -f /srv/data? [y/N]'],
    ['a long rm flag', 'Run rm --recursive /srv/data now? [y/N]'],
    ['an unknown question', 'Apply the migration to prod? [y/N]'],
  ])('never answers a prompt with %s', async (_label, prompt) => {
    const result = await autoAnswer(`agent-auto-${Math.random().toString(36).slice(2, 8)}`, prompt);
    expect(result.typed).toBe(false);
  });

  it('still answers a plain "Continue? [y/N]" (the control)', async () => {
    const result = await autoAnswer('agent-auto-plain', 'Continue? [y/N]');
    expect(result.typed).toBe(true);
  });
});

describe('the review queue: nobody approves their own proposal', () => {
  it('refuses the claiming identity, admits another', async () => {
    const name = 'agent-review';
    await broker.server.newSession(name, "bash --norc --noprofile -c 'read -p \"Go on? [y/N] \" a; echo answer=$a; sleep 600'", { width: 100, height: 20 });
    const proposer = withToken(full);
    await proposer.supervisor.watch({ session: name });
    await proposer.supervisor2.setPolicy({ session: name, mode: 'suggest_only' });
    let eventId = 0;
    await vi.waitFor(
      async () => {
        await proposer.supervisor.runOnce({});
        const e = (await proposer.supervisor.listEvents({ watch_key: `session:${name}` })).events.find((x) => x.event_type === 'attention_required');
        expect(e).toBeDefined();
        eventId = e!.id;
      },
      { timeout: 60_000, interval: 200 },
    );
    const action = await proposer.supervisor2.claimEvent({ event_id: eventId });
    await proposer.supervisor2.submitDecision({ action_id: action.id, prompt: 'y' });
    expect((await outcome(proposer.supervisor2.reviewAction({ action_id: action.id, decision: 'approve' }))).code).toBe('FORBIDDEN');
    // The same person's other name is the same identity: a claimed name changes nothing.
    expect((await outcome(gateway({ [BROKER_HEADERS.credential]: full, [BROKER_HEADERS.actor]: 'web:admin' }).supervisor2.reviewAction({ action_id: action.id, decision: 'approve' }))).code).toBe('FORBIDDEN');
    const other = await gatewayAccessToken(broker.deps, { scope: 'terminal:read terminal:input', username: 'bob', clientName: 'Reviewer' });
    expect(await withToken(other).supervisor2.reviewAction({ action_id: action.id, decision: 'approve' })).toMatchObject({ state: 'approved' });
    expect((await proposer.supervisor2.executeSend({ action_id: action.id })).sent).toBe(true);
    await waitFor('the approved answer', async () => (await screen(name)).includes('answer=y'), 20_000, 100);
    // The input audit names both identities of the reviewed send.
    const row = broker.deps.stores.audit.list({ limit: 50 }).find((r) => r.tool === 'supervisor2_execute_send' && r.sessionName === name)!;
    expect(JSON.parse(row.receiptJson ?? '{}')).toMatchObject({ review: { action_id: action.id, proposed_by: action.claimed_by, approved_by: expect.stringMatching(/^gateway:oauth:Reviewer@bob\//) } });
  });
});

describe('finding 7 (lower): each authorization server knows only its own clients', () => {
  it('a client registered at the observer cannot start or finish a sign-in at the gateway, nor the reverse', async () => {
    const loopback = 'http://127.0.0.1:9/cb';
    const atObserver = registerClient(broker.deps.oauth.observer, { redirectUris: [loopback], tokenEndpointAuthMethod: 'none' });
    const atGateway = registerClient(broker.deps.oauth.gateway, { redirectUris: [loopback], tokenEndpointAuthMethod: 'none' });
    if (!atObserver.ok || !atGateway.ok) throw new Error('registration refused');
    expect(describeAuthorization(broker.deps.oauth.observer, { clientId: atObserver.client.clientId, redirectUri: loopback }).ok).toBe(true);
    expect(describeAuthorization(broker.deps.oauth.gateway, { clientId: atObserver.client.clientId, redirectUri: loopback })).toMatchObject({ ok: false, error: 'invalid_client' });
    expect(describeAuthorization(broker.deps.oauth.observer, { clientId: atGateway.client.clientId, redirectUri: loopback })).toMatchObject({ ok: false, error: 'invalid_client' });
    // Nor at the token endpoint (a code or refresh token of one server used at the other).
    expect(exchangeToken(broker.deps.oauth.gateway, { grantType: 'refresh_token', clientId: atObserver.client.clientId, refreshToken: `tmcp_rt_${'x'.repeat(43)}` })).toMatchObject({ ok: false, error: 'invalid_client' });
  });
});

describe('finding 7 (lower): notes have a quota per identity', () => {
  it('refuses a client past its live notes and its attachment bytes, and leaves other identities alone', async () => {
    const filler = await gatewayAccessToken(broker.deps, { scope: 'terminal:read terminal:write', username: 'alice', clientName: 'Filler' });
    const other = await gatewayAccessToken(broker.deps, { scope: 'terminal:read terminal:write', username: 'alice', clientName: 'Other' });
    const notes = withToken(filler).notes;
    let refused: string | undefined;
    let mine = 0;
    for (let i = 0; i <= NOTE_LIMITS.notesPerActor && refused === undefined; i++) {
      const made = await outcome(notes.create({ title: `filler ${i}` }));
      refused = made.code;
      mine = (made.value as { id: number } | undefined)?.id ?? mine;
    }
    expect(refused).toBe('QUOTA_EXCEEDED');
    expect((await outcome(withToken(other).notes.create({ title: 'still mine to write' }))).code).toBeUndefined();
    // Deleting frees the quota.
    await notes.delete({ id: mine });
    expect((await outcome(notes.create({ title: 'after a delete' }))).code).toBeUndefined();

    // Attachment bytes, counted by the store in the insert's transaction.
    const store = broker.deps.stores.notes;
    const note = store.create({ title: 'bytes', body: '', analysis: '', sourceUrl: null, tags: [], project: null, status: 'new', appliedAt: null, appliedWhere: null }, 'gateway:bytes', Date.now());
    const record = (id: string, size: number) => ({ id, noteId: note.id, mimeType: 'image/png' as const, relPath: `x/${id}.png`, size, sha256: 'a'.repeat(64), caption: null, createdAt: Date.now(), createdBy: 'gateway:bytes' });
    store.addAttachment(record('00000000-0000-4000-8000-000000000001', NOTE_LIMITS.attachmentBytesPerActor - 10));
    expect(() => store.addAttachment(record('00000000-0000-4000-8000-000000000002', 11))).toThrow(/exceed/);
    store.addAttachment(record('00000000-0000-4000-8000-000000000003', 10));
  }, 120_000);
});

describe('finding 7 (lower): a guarded program detached with setsid -f still guards its terminal', () => {
  it('refuses input to a pane whose pty a detached guarded program reads', async () => {
    // `ssh` here is a link to cat: its kernel command name is ssh, and it reads the pty.
    const ssh = join(root, 'bin', 'ssh');
    mkdirSync(join(root, 'bin'), { recursive: true });
    symlinkSync('/bin/cat', ssh);
    await broker.server.newSession('agent-setsid', `bash --norc --noprofile -c 'setsid -f ${ssh}; exec sleep 600'`, { width: 100, height: 20 });
    await waitFor('the detached reader', async () => (await broker.server.tmux(['list-panes', '-t', '=agent-setsid:', '-F', '#{pane_current_command}'])).includes('sleep'), 20_000, 100);
    const sent = await outcome(withToken(full).input.sendText({ session: 'agent-setsid', text: 'hunter2', dry_run: true }));
    expect(sent.code).toBe('COMMAND_GUARDED');
  });
});
