// Derives every MCP tool from the gateway's and the observer's registrations (GATEWAY_TOOLS, OBSERVER_TOOLS; tools/list must list exactly them) and calls each one over real HTTP with a read-only OAuth token (a real broker, a private tmux server, real stores and configured commands): no call changes a pane, a store or starts a process. A tool without a sample argument set fails the test.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createBrokerClient } from '@terminal-mcp/broker-client';
import { GATEWAY_TOOLSETS, type SocketRole } from '@terminal-mcp/contract';
import { createGatewayLogger, ERROR_META_KEY, GATEWAY_TOOLS, INPUT_TOOL_NAMES, startGatewayHttp, type RunningGatewayHttp } from '@terminal-mcp/gateway';
import { createObserverLogger, OBSERVER_TOOLS, startObserverHttp, type RunningObserverHttp } from '@terminal-mcp/observer';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startBrokerProcess, type BrokerProcess } from './helpers/broker-process.js';
import { effectsBetween, markersExist, paneBytes, recordingPaneCommand, TINY_PNG_BASE64, watchStores, type EffectSnapshot, type StoreWatch } from './helpers/effects.js';
import { issueAccessToken } from './helpers/oauth-token.js';
import { createOperatorAccount } from './helpers/operator-account.js';
import { startTmuxServer, type TmuxTestServer } from './helpers/tmux-server.js';
import { waitFor } from './helpers/wait-for.js';

const USER = 'erin';
const PASSWORD = 'every tool passphrase 77';
const TARGET = 'agent-target';
const DONE = 'agent-done';
/** A session a launch profile started: what close and restart may act on. */
const MANAGED = 'agent-managed';
const PANES = [TARGET, DONE];

let root: string;
let tmux: TmuxTestServer;
let broker: BrokerProcess;
let gw: RunningGatewayHttp;
let obs: RunningObserverHttp;
let stores: StoreWatch;
const clients: Client[] = [];
const fx = { managedId: '$0', goneId: '$0', noteId: 0, attachmentId: '', eventId: 0, actionId: 0 };
/** A session that is gone: terminal_session_forget would tombstone its registry row. */
const GONE = 'agent-gonefx';
const markers = () => ({ deploy: join(root, 'deploy-ran'), verify: join(root, 'verify-ran') });

/** Every tool's arguments, by name: each one would have an effect if the call were allowed. */
const SAMPLES: Record<string, () => Record<string, unknown>> = {
  terminal_list_sessions: () => ({}),
  terminal_list_panes: () => ({ session: TARGET }),
  terminal_tail: () => ({ session: TARGET }),
  terminal_capture: () => ({ session: TARGET }),
  terminal_read_since: () => ({ session: TARGET }),
  terminal_status: () => ({ session: TARGET }),
  terminal_batch_inspect: () => ({ sessions: [TARGET] }),
  terminal_export_transcript: () => ({ session: TARGET }),
  terminal_wait_for_state: () => ({ session: TARGET, states: ['RUNNING'], timeout_s: 0 }),
  terminal_resume_wait: () => ({ resume_token: 'r'.repeat(32), timeout_s: 0 }),
  terminal_input_context: () => ({ session: TARGET }),
  terminal_send_task: () => ({ session: TARGET, text: 'typed-by-the-attack' }),
  terminal_run: () => ({ session: TARGET, command: 'typed-by-the-attack' }),
  terminal_send_text: () => ({ session: TARGET, text: 'typed-by-the-attack', enter: true }),
  terminal_send_bound: () => ({ binding: 'fixture-bind', text: 'typed-by-the-attack', enter: true }),
  terminal_send_keys: () => ({ session: TARGET, keys: ['Enter'] }),
  terminal_bind: () => ({ binding: 'fixture-bind', session: DONE, replace: true, input_enabled: true }),
  terminal_get_binding: () => ({ binding: 'fixture-bind' }),
  terminal_list_bindings: () => ({}),
  terminal_unbind: () => ({ binding: 'fixture-bind' }),
  terminal_tail_bound: () => ({ binding: 'fixture-bind' }),
  terminal_status_bound: () => ({ binding: 'fixture-bind' }),
  terminal_list_input_audit: () => ({}),
  terminal_request_human: () => ({ session: TARGET, reason: 'asked by the attack' }),
  notify_user: () => ({ message: 'sent by the attack', level: 'urgent' }),
  terminal_node_health: () => ({}),
  terminal_wait_for_approval: () => ({ approval_id: 1, timeout_s: 0 }),
  note_create: () => ({ title: 'planted by the attack' }),
  note_search: () => ({ query: 'fixture' }),
  note_get: () => ({ id: fx.noteId }),
  note_list: () => ({}),
  note_update: () => ({ id: fx.noteId, title: 'changed by the attack' }),
  note_delete: () => ({ id: fx.noteId }),
  note_restore: () => ({ id: fx.noteId }),
  note_add_attachment: () => ({ id: fx.noteId, data_base64: TINY_PNG_BASE64 }),
  note_remove_attachment: () => ({ attachment_id: fx.attachmentId }),
  note_link_to_project: () => ({ id: fx.noteId, project: 'attack' }),
  note_mark_applied: () => ({ id: fx.noteId, where: 'attack' }),
  note_facets: () => ({}),
  project_check: () => ({ project: 'app' }),
  project_dispatch: () => ({ project: 'app', task: 'typed-by-the-attack', idempotency_key: `k-${Math.random()}` }),
  deploy_preview: () => ({ project: 'app', command_id: 'mark' }),
  terminal_session_start: () => ({ profile: 'agent', name: 'agent-started-by-attack' }),
  terminal_session_close: () => ({ session: MANAGED, expect_session_id: fx.managedId, confirm: true }),
  terminal_session_restart: () => ({ session: MANAGED, expect_session_id: fx.managedId, confirm: true }),
  terminal_session_forget: () => ({ session: GONE, expect_session_id: fx.goneId, confirm: true }),
  terminal_resize: () => ({ session: TARGET, width: 60, height: 15 }),
  supervisor_watch: () => ({ session: DONE, done_marker: 'FIXTURE-DONE' }),
  supervisor_unwatch: () => ({ session: TARGET }),
  supervisor_list_watches: () => ({}),
  supervisor_status: () => ({}),
  supervisor_list_events: () => ({}),
  supervisor_ack_event: () => ({ event_id: fx.eventId }),
  supervisor_run_once: () => ({}),
  supervisor_wait_events: () => ({ timeout_s: 0 }),
  supervisor_set_verifier_policy: () => ({ session: DONE, profile: 'mark' }),
  supervisor2_set_policy: () => ({ session: TARGET, mode: 'approved_auto_continue', approved_template: 'y' }),
  supervisor2_get_policy: () => ({ session: TARGET }),
  supervisor2_list_actionable_events: () => ({}),
  supervisor2_claim_event: () => ({ event_id: fx.eventId }),
  supervisor2_submit_decision: () => ({ action_id: fx.actionId, prompt: 'y' }),
  supervisor2_review_action: () => ({ action_id: fx.actionId, decision: 'approve' }),
  supervisor2_execute_send: () => ({ action_id: fx.actionId }),
  supervisor2_list_actions: () => ({}),
  source_list_projects: () => ({}),
  source_git_status: () => ({ project: 'app' }),
  source_git_log: () => ({ project: 'app' }),
  source_show_commit: () => ({ project: 'app', rev: 'HEAD' }),
  source_diff: () => ({ project: 'app', from: 'HEAD' }),
  source_list_refs: () => ({ project: 'app' }),
  source_blame: () => ({ project: 'app', path: 'a.txt' }),
  source_list_files: () => ({ project: 'app' }),
  source_read_file: () => ({ project: 'app', path: 'a.txt' }),
  source_search: () => ({ project: 'app', query: 'a' }),
};

/** An access token for `role`'s server with exactly `scope` (helpers/oauth-token.ts). */
const accessToken = (role: Extract<SocketRole, 'gateway' | 'observer'>, resource: string, scope: string) =>
  issueAccessToken({ env: broker.env, role, resource, scope, username: USER, password: PASSWORD, clientName: `every-tool ${role}` });

async function mcp(url: string, token: string): Promise<Client> {
  const client = new Client({ name: 'oauth:Owner@erin', version: '0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  clients.push(client);
  return client;
}

/** Each session by name, identity and window size: a start, close, restart or resize shows. */
const sessionNames = async () => (await tmux.tmux(['list-sessions', '-F', '#{session_name} #{session_id} #{window_width}x#{window_height}'])).split('\n').filter(Boolean).sort();
/** Right before a call: the process markers are removed first, so every call that runs a
 * configured command shows, not only the first. */
async function snapshot(fresh = false): Promise<EffectSnapshot> {
  if (fresh) for (const marker of Object.values(markers())) rmSync(marker, { force: true });
  return { panes: paneBytes(root, PANES), stores: stores.versions(), processes: markersExist(markers()), sessions: await sessionNames() };
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'tmcp-every-tool-'));
  const repo = join(root, 'repo');
  execFileSync('git', ['init', '-q', repo]);
  writeFileSync(join(repo, 'a.txt'), 'a\n');
  execFileSync('git', ['-C', repo, 'add', 'a.txt']);
  execFileSync('git', ['-C', repo, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'a']);
  mkdirSync(join(root, 'images'));
  tmux = await startTmuxServer();
  await tmux.newSession(TARGET, recordingPaneCommand(root, TARGET, 'Continue? [y/N] '), { width: 100, height: 20 });
  await tmux.newSession(DONE, recordingPaneCommand(root, DONE, 'FIXTURE-DONE'), { width: 100, height: 20 });
  for (const s of PANES) await waitFor(`${s} recording`, async () => (await tmux.tmux(['list-panes', '-t', `=${s}:`, '-F', '#{pane_current_command}'])).includes('python'), 20_000, 100);
  broker = await startBrokerProcess({
    tmuxSocket: tmux.socketName,
    config: {
      log_level: 'warn',
      gateway: { toolsets: { oauth: [...GATEWAY_TOOLSETS] } },
      permissions: { terminal_read: true, terminal_input: true, session_lifecycle: true },
      launch_profiles: [{ name: 'agent', command: ['sleep', '600'], roots: [root], name_pattern: 'agent-*' }],
      allowed_session_patterns: ['agent-*'],
      input_policy: { allowed_session_patterns: ['agent-*'] },
      observer: { source_roots: [{ name: 'app', path: repo }] },
      project_profiles: [{ name: 'app', repo: 'app', sessions: [TARGET], deploy_preview: { preview_safe: true, commands: [{ id: 'mark', argv: ['touch', markers().deploy] }] } }],
      supervisor: { v2_enabled: true, idle_threshold_seconds: 1, verifier_profiles: [{ id: 'mark', worktree: repo, require_git_clean: false, test_command: ['touch', markers().verify] }] },
    },
  });
  await createOperatorAccount(broker.env, USER, PASSWORD);
  gw = await startGatewayHttp({ port: 0, env: broker.env, log: createGatewayLogger('silent'), oauth: true, registrationLimits: { perSource: 1000 } });
  obs = await startObserverHttp({ port: 0, env: broker.env, log: createObserverLogger('silent'), registrationLimits: { perSource: 1000 } });
  // registry.db: the running broker records tmux's sessions on its own schedule; no tool writes it.
  stores = watchStores(broker.stateDir, ['registry']);

  // The fixtures, made by a process on gateway.sock (every effect, input on).
  const owner = createBrokerClient({ role: 'gateway', env: broker.env });
  await owner.bindings.bind.mutate({ binding: 'fixture-bind', session: TARGET, input_enabled: true });
  fx.managedId = (await owner.lifecycle.start.mutate({ profile: 'agent', name: MANAGED })).session_id!;
  await tmux.newSession(GONE, 'sleep 600');
  fx.goneId = await waitFor(`${GONE} listed`, async () => (await owner.sessions.list.query({})).sessions.find((x) => x.name === GONE)?.session_id, 30_000, 100);
  await tmux.tmux(['kill-session', '-t', `=${GONE}`]);
  await waitFor(`${GONE} gone`, async () => (await owner.sessions.list.query({ include_dead: true })).dead_sessions?.some((d) => d.name === GONE && d.status === 'KILLED'), 30_000, 100);
  fx.noteId = (await owner.notes.create.mutate({ title: 'fixture note' })).id;
  fx.attachmentId = (await owner.notes.addAttachment.mutate({ id: fx.noteId, data_base64: TINY_PNG_BASE64 })).id;
  await owner.supervisor.watch.mutate({ session: TARGET });
  await owner.supervisor2.setPolicy.mutate({ session: TARGET, mode: 'suggest_only' });
  await vi.waitFor(
    async () => {
      await owner.supervisor.runOnce.mutate({});
      const e = (await owner.supervisor.listEvents.query({ watch_key: `session:${TARGET}` })).events.find((x) => x.event_type === 'attention_required');
      expect(e).toBeDefined();
      fx.eventId = e!.id;
    },
    { timeout: 60_000, interval: 200 },
  );
  const action = await owner.supervisor2.claimEvent.mutate({ event_id: fx.eventId });
  await owner.supervisor2.submitDecision.mutate({ action_id: action.id, prompt: 'y' });
  fx.actionId = action.id;
  await owner.supervisor.watch.mutate({ session: DONE, done_marker: 'NOT-YET' });
  await owner.supervisor2.setPolicy.mutate({ session: DONE, mode: 'approved_auto_continue', approved_template: 'y' });
  await owner.supervisor.setVerifierPolicy.mutate({ session: DONE, profile: 'mark' });
}, 180_000);

afterAll(async () => {
  await Promise.allSettled(clients.map((c) => c.close()));
  stores?.close();
  await gw?.close();
  await obs?.close();
  await broker?.stop();
  await tmux?.kill();
  if (root) rmSync(root, { recursive: true, force: true });
}, 60_000);

const errorCodeOf = (r: CallToolResult) => (r._meta?.[ERROR_META_KEY] as { error_code?: string } | undefined)?.error_code;

describe('every MCP tool, derived from the registrations, with a read-only token', () => {
  it('has sample arguments for every registered tool (add them for a new tool)', () => {
    const names = [...new Set([...GATEWAY_TOOLS, ...OBSERVER_TOOLS].map((t) => t.name))];
    expect(names.filter((n) => SAMPLES[n] === undefined)).toEqual([]);
  });

  it.each([
    // Every toolset is on for OAuth clients here (config above); a read-only token is not
    // listed the tools that type, but calls them by name all the same: the attack.
    ['gateway', () => gw.mcpUrl, 'terminal:read', GATEWAY_TOOLS.map((t) => t.name), GATEWAY_TOOLS.map((t) => t.name).filter((n) => !INPUT_TOOL_NAMES.has(n))],
    ['observer', () => obs.mcpUrl, 'observer:read', OBSERVER_TOOLS.map((t) => t.name), OBSERVER_TOOLS.map((t) => t.name)],
  ] as const)('%s: lists its registered tools a reader may see, and none of them (called by name, listed or not) changes a pane, a store or starts a process', async (role, url, scope, registered, listed) => {
    const client = await mcp(url(), await accessToken(role, url(), scope));
    expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual([...listed].sort());
    const found: string[] = [];
    for (const name of registered) {
      const before = await snapshot(true);
      const result = (await client.callTool({ name, arguments: SAMPLES[name]!() })) as CallToolResult;
      // A late effect (a send after a landing check) gets a moment to show.
      await new Promise((r) => setTimeout(r, 50));
      const diff = effectsBetween(before, await snapshot());
      if (diff.panes.length + diff.stores.length + diff.processes.length > 0) {
        found.push(`${name} (${result.isError ? errorCodeOf(result) : 'ok'}) changed ${[...diff.panes, ...diff.stores, ...diff.processes].join(', ')}`);
      }
    }
    expect(found).toEqual([]);
  }, 300_000);

  it('left the gone session in the registry (registry.db is not watched: the broker writes it on its own)', async () => {
    const owner = createBrokerClient({ role: 'gateway', env: broker.env });
    expect((await owner.sessions.list.query({ include_dead: true })).dead_sessions?.find((d) => d.name === GONE)).toMatchObject({ status: 'KILLED', session_id: fx.goneId });
  });
});
