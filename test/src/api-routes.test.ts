// Guards the scripts' HTTP API (issue 49): every route, derived from /api/v1/openapi.json, answers without a token 401, with a read-only OAuth token and with the full token exactly the HTTP status of the MCP answer to the same call (403 for the input routes with a read-only token, with the same audit rows as MCP), and a bad request is a 4xx, never a 500.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createBrokerClient } from '@terminal-mcp/broker-client';
import { ERROR_CODES, ERROR_SPECS, GATEWAY_TOOL_OPERATIONS, GATEWAY_TOOLSETS, INPUT_TOOL_NAMES, routeParams, type ErrorCode } from '@terminal-mcp/contract';
import { createGatewayLogger, ERROR_META_KEY, startGatewayHttp, type RunningGatewayHttp } from '@terminal-mcp/gateway';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBrokerProcess, type BrokerProcess } from './helpers/broker-process.js';
import { TINY_PNG_BASE64 } from './helpers/effects.js';
import { issueAccessToken } from './helpers/oauth-token.js';
import { createOperatorAccount } from './helpers/operator-account.js';
import { startTmuxServer, type TmuxTestServer } from './helpers/tmux-server.js';

const USER = 'api-erin';
const PASSWORD = 'api routes passphrase 41';
const TOKEN = 'api-full-token-7c21d9e4';
const TARGET = 'api-target';
const MISSING = 999_999;

let root: string;
let tmux: TmuxTestServer;
let broker: BrokerProcess;
let gw: RunningGatewayHttp;
let readOnly: string;
let owner: ReturnType<typeof createBrokerClient<'gateway'>>;
const clients: Client[] = [];
const fx = { noteId: 0, attachmentId: '' };

/** Each tool's arguments, and what to redo before each call so that the MCP call after the
 * API call meets the same state (an unbind needs a binding, a delete a live note). */
const SAMPLES: Record<string, { args: () => Record<string, unknown>; before?: () => Promise<unknown> }> = {
  terminal_list_sessions: { args: () => ({}) },
  terminal_list_panes: { args: () => ({ session: TARGET }) },
  terminal_tail: { args: () => ({ session: TARGET, lines: 5 }) },
  terminal_capture: { args: () => ({ session: TARGET }) },
  terminal_read_since: { args: () => ({ session: TARGET, cursor: 'start' }) },
  terminal_status: { args: () => ({ session: TARGET }) },
  terminal_batch_inspect: { args: () => ({ sessions: [TARGET] }) },
  terminal_export_transcript: { args: () => ({ session: TARGET }) },
  terminal_wait_for_state: { args: () => ({ session: TARGET, states: ['RUNNING', 'IDLE'], timeout_s: 0 }) },
  terminal_resume_wait: { args: () => ({ resume_token: 'r'.repeat(32), timeout_s: 0 }) },
  terminal_input_context: { args: () => ({ session: TARGET }) },
  terminal_send_task: { args: () => ({ session: TARGET, text: 'echo api-task', dry_run: true }) },
  terminal_run: { args: () => ({ session: 'api-missing', command: 'true' }) },
  terminal_send_text: { args: () => ({ session: TARGET, text: 'echo api-text', dry_run: true }) },
  terminal_send_bound: { args: () => ({ binding: 'api-bind', text: 'echo api-bound', dry_run: true }), before: () => bindFixture() },
  terminal_send_keys: { args: () => ({ session: TARGET, keys: ['Enter'], dry_run: true }) },
  terminal_bind: { args: () => ({ binding: 'api-bind', session: TARGET, replace: true }) },
  terminal_get_binding: { args: () => ({ binding: 'api-bind' }), before: () => bindFixture() },
  terminal_list_bindings: { args: () => ({}) },
  terminal_unbind: { args: () => ({ binding: 'api-bind' }), before: () => bindFixture() },
  terminal_tail_bound: { args: () => ({ binding: 'api-bind', lines: 5 }), before: () => bindFixture() },
  terminal_status_bound: { args: () => ({ binding: 'api-bind' }), before: () => bindFixture() },
  terminal_list_input_audit: { args: () => ({ limit: 5 }) },
  terminal_request_human: { args: () => ({ session: 'api-missing', reason: 'api test' }) },
  notify_user: { args: () => ({ message: 'api test', session: 'api-missing' }) },
  terminal_node_health: { args: () => ({}) },
  terminal_wait_for_approval: { args: () => ({ approval_id: MISSING, timeout_s: 0 }) },
  note_create: { args: () => ({ title: 'made through the api test', tags: ['api'] }) },
  note_search: { args: () => ({ query: 'fixture' }) },
  note_get: { args: () => ({ id: fx.noteId }) },
  note_list: { args: () => ({ limit: 3 }) },
  note_update: { args: () => ({ id: fx.noteId, title: 'fixture note' }) },
  note_delete: { args: () => ({ id: fx.noteId }), before: () => owner.notes.restore.mutate({ id: fx.noteId }).catch(() => undefined) },
  note_restore: { args: () => ({ id: fx.noteId }), before: () => owner.notes.delete.mutate({ id: fx.noteId }).catch(() => undefined) },
  note_add_attachment: { args: () => ({ id: fx.noteId, data_base64: TINY_PNG_BASE64 }), before: () => owner.notes.restore.mutate({ id: fx.noteId }).catch(() => undefined) },
  note_remove_attachment: {
    args: () => ({ attachment_id: fx.attachmentId }),
    before: async () => {
      fx.attachmentId = (await owner.notes.addAttachment.mutate({ id: fx.noteId, data_base64: TINY_PNG_BASE64 })).id;
    },
  },
  note_link_to_project: { args: () => ({ id: fx.noteId, project: 'api' }) },
  note_mark_applied: { args: () => ({ id: fx.noteId, where: 'api' }) },
  note_facets: { args: () => ({}) },
  project_check: { args: () => ({ project: 'none' }) },
  project_dispatch: { args: () => ({ project: 'none', task: 'x', idempotency_key: 'api-key-1' }) },
  deploy_preview: { args: () => ({ project: 'none', command_id: 'none' }) },
  terminal_session_start: { args: () => ({ profile: 'agent', name: 'api-started', dry_run: true }) },
  terminal_session_close: { args: () => ({ session: 'api-missing', expect_session_id: '$999', confirm: true }) },
  terminal_session_restart: { args: () => ({ session: 'api-missing', expect_session_id: '$999', confirm: true }) },
  terminal_session_forget: { args: () => ({ session: 'api-missing', expect_session_id: '$999', confirm: true }) },
  terminal_resize: { args: () => ({ session: 'api-missing', width: 60, height: 15 }) },
  supervisor_watch: { args: () => ({ session: TARGET }) },
  supervisor_unwatch: { args: () => ({ session: TARGET }), before: () => owner.supervisor.watch.mutate({ session: TARGET }) },
  supervisor_list_watches: { args: () => ({}) },
  supervisor_status: { args: () => ({}) },
  supervisor_list_events: { args: () => ({ limit: 5 }) },
  supervisor_ack_event: { args: () => ({ event_id: MISSING }) },
  supervisor_run_once: { args: () => ({}) },
  supervisor_wait_events: { args: () => ({ timeout_s: 0 }) },
  supervisor_set_verifier_policy: { args: () => ({ session: TARGET, profile: 'none' }) },
  supervisor2_set_policy: { args: () => ({ session: TARGET, mode: 'suggest_only' }), before: () => owner.supervisor.watch.mutate({ session: TARGET }) },
  supervisor2_get_policy: { args: () => ({ session: TARGET }), before: () => owner.supervisor.watch.mutate({ session: TARGET }) },
  supervisor2_list_actionable_events: { args: () => ({ limit: 5 }) },
  supervisor2_claim_event: { args: () => ({ event_id: MISSING }) },
  supervisor2_submit_decision: { args: () => ({ action_id: MISSING, prompt: 'y' }) },
  supervisor2_review_action: { args: () => ({ action_id: MISSING, decision: 'approve' }) },
  supervisor2_execute_send: { args: () => ({ action_id: MISSING }) },
  supervisor2_list_actions: { args: () => ({ limit: 5 }) },
};

/** For the read-only token's input calls: targets that exist, so the answer is the
 * refusal of the effect, not "no such session". */
const REAL_TARGETS: Record<string, Record<string, unknown>> = {
  terminal_run: { session: TARGET, command: 'true' },
  terminal_send_task: { dry_run: false },
  terminal_send_text: { dry_run: false },
  terminal_send_keys: { dry_run: false },
  terminal_send_bound: { dry_run: false },
  project_dispatch: { project: 'app' },
  terminal_session_start: { dry_run: false },
  terminal_session_close: { session: TARGET },
  terminal_session_restart: { session: TARGET },
  terminal_session_forget: { session: TARGET },
  terminal_resize: { session: TARGET },
};

const bindFixture = () => owner.bindings.bind.mutate({ binding: 'api-bind', session: TARGET, replace: true });

interface Route {
  tool: string;
  method: 'GET' | 'POST';
  path: string;
}

/** Every route of the OpenAPI document, read as a script would. */
async function routesFromDocument(): Promise<Route[]> {
  const res = await fetch(`${base()}/api/v1/openapi.json`, { headers: { authorization: `Bearer ${TOKEN}` } });
  expect(res.status).toBe(200);
  const doc = (await res.json()) as { openapi: string; paths: Record<string, Record<string, { operationId: string }>> };
  expect(doc.openapi).toBe('3.1.0');
  return Object.entries(doc.paths).flatMap(([path, methods]) => Object.entries(methods).map(([method, op]) => ({ tool: op.operationId, method: method.toUpperCase() as Route['method'], path })));
}

const base = () => gw.mcpUrl.replace(/\/mcp$/, '');

/** The request for `route` with these arguments: path segments, then query or JSON body. */
function apiCall(route: Route, args: Record<string, unknown>, token: string | undefined): Promise<Response> {
  const rest = { ...args };
  let path = route.path;
  for (const name of routeParams(route.path)) {
    path = path.replace(`{${name}}`, encodeURIComponent(String(rest[name])));
    delete rest[name];
  }
  const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  if (route.method === 'GET') {
    const query = new URLSearchParams();
    for (const [k, v] of Object.entries(rest)) for (const item of Array.isArray(v) ? v : [v]) query.append(k, String(item));
    const qs = query.toString();
    return fetch(`${base()}${path}${qs ? `?${qs}` : ''}`, { headers });
  }
  return fetch(`${base()}${path}`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(rest) });
}

async function mcp(token: string): Promise<Client> {
  const client = new Client({ name: 'api-routes', version: '0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(gw.mcpUrl), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  clients.push(client);
  return client;
}

/** The HTTP status the MCP answer maps to: 200, or its error code's; for a BLOCKED receipt
 * (a 200 on MCP) the status of its refusal, which the API answers (docs/api-http.md).
 * project_dispatch renders its receipt as text only ("app: BLOCKED — <message>"): then
 * the refusal is the API body's, if the text says BLOCKED with the same message. */
function statusOfMcp(result: CallToolResult, apiBody?: Record<string, unknown>): { status: number; code?: string } {
  const receipt = result.structuredContent as { receipt?: string; error_code?: ErrorCode } | undefined;
  if (!result.isError && receipt?.receipt === 'BLOCKED') return { status: ERROR_SPECS[receipt.error_code!].http, code: receipt.error_code! };
  const text = result.content?.map((c) => (c.type === 'text' ? c.text : '')).join('') ?? '';
  if (!result.isError && receipt === undefined && apiBody?.receipt === 'BLOCKED' && text.includes(`: BLOCKED — ${String(apiBody.message)}`)) {
    const code = apiBody.error_code as ErrorCode;
    return { status: ERROR_SPECS[code].http, code };
  }
  if (!result.isError) return { status: 200 };
  const code = (result._meta?.[ERROR_META_KEY] as { error_code?: ErrorCode } | undefined)?.error_code;
  expect(code, JSON.stringify(result.content)).toBeDefined();
  return { status: ERROR_SPECS[code!].http, code: code! };
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'tmcp-api-routes-'));
  const repo = join(root, 'repo');
  execFileSync('git', ['init', '-q', repo]);
  tmux = await startTmuxServer();
  await tmux.newSession(TARGET, 'sleep 600', { width: 100, height: 20 });
  broker = await startBrokerProcess({
    tmuxSocket: tmux.socketName,
    config: {
      log_level: 'warn',
      gateway: { toolsets: { default: [...GATEWAY_TOOLSETS], oauth: [...GATEWAY_TOOLSETS] } },
      permissions: { terminal_read: true, terminal_input: true, session_lifecycle: true },
      launch_profiles: [{ name: 'agent', command: ['sleep', '600'], roots: [root], name_pattern: 'api-*' }],
      allowed_session_patterns: ['api-*'],
      input_policy: { allowed_session_patterns: ['api-*'] },
      supervisor: { v2_enabled: true },
      observer: { source_roots: [{ name: 'app', path: repo }] },
      project_profiles: [{ name: 'app', repo: 'app', sessions: [TARGET] }],
    },
  });
  await createOperatorAccount(broker.env, USER, PASSWORD);
  gw = await startGatewayHttp({ port: 0, env: broker.env, log: createGatewayLogger('silent'), oauth: true, token: TOKEN, registrationLimits: { perSource: 1000 } });
  readOnly = await issueAccessToken({ env: broker.env, role: 'gateway', resource: gw.mcpUrl, scope: 'terminal:read', username: USER, password: PASSWORD, clientName: 'api read-only' });
  owner = createBrokerClient({ role: 'gateway', env: broker.env });
  fx.noteId = (await owner.notes.create.mutate({ title: 'fixture note' })).id;
}, 120_000);

afterAll(async () => {
  await Promise.allSettled(clients.map((c) => c.close()));
  await gw?.close();
  await broker?.stop();
  await tmux?.kill();
  if (root) rmSync(root, { recursive: true, force: true });
}, 60_000);

describe('the scripts API, every route from the OpenAPI document', () => {
  it('documents exactly the operation table\'s gateway tools, one route each', async () => {
    const routes = await routesFromDocument();
    expect(routes.map((r) => r.tool).sort()).toEqual(GATEWAY_TOOL_OPERATIONS.map((op) => op.tool.name).sort());
    expect(routes.filter((r) => SAMPLES[r.tool] === undefined).map((r) => r.tool)).toEqual([]);
  });

  it('refuses every route without a token (401) and with a wrong one', async () => {
    for (const route of await routesFromDocument()) {
      const args = SAMPLES[route.tool]!.args();
      expect((await apiCall(route, args, undefined)).status, route.tool).toBe(401);
      expect((await apiCall(route, args, 'not-the-token')).status, route.tool).toBe(401);
    }
    expect((await fetch(`${base()}/api/v1/openapi.json`)).status).toBe(401);
  });

  it.each([
    ['the full token', (): string => TOKEN],
    ['a read-only OAuth token', (): string => readOnly],
  ] as const)('with %s, answers each route with the HTTP status of the MCP answer to the same call', async (_label, token) => {
    const client = await mcp(token());
    const differ: string[] = [];
    for (const route of await routesFromDocument()) {
      const sample = SAMPLES[route.tool]!;
      await sample.before?.();
      const res = await apiCall(route, sample.args(), token());
      const body = (await res.json()) as Record<string, unknown>;
      await sample.before?.();
      const expected = statusOfMcp((await client.callTool({ name: route.tool, arguments: sample.args() })) as CallToolResult, body);
      if (res.status !== 200) expect(ERROR_CODES, `${route.tool}: ${JSON.stringify(body)}`).toContain(body.code);
      if (res.status !== expected.status || (expected.code !== undefined && body.code !== expected.code)) {
        differ.push(`${route.method} ${route.path}: api ${res.status} ${String(body.code ?? '')} mcp ${expected.status} ${expected.code ?? ''}`);
      }
      expect(res.status, route.tool).not.toBe(500);
    }
    expect(differ).toEqual([]);
  }, 180_000);

  it('refuses the input routes to a read-only token (403) and audits them as MCP does', async () => {
    const client = await mcp(readOnly);
    const routes = (await routesFromDocument()).filter((r) => INPUT_TOOL_NAMES.has(r.tool));
    expect(routes.length).toBe(INPUT_TOOL_NAMES.size);
    const auditOf = async () =>
      ((await (await apiCall({ tool: 'terminal_list_input_audit', method: 'GET', path: '/api/v1/audit/input' }, { limit: 2 }, readOnly)).json()) as { entries: Record<string, unknown>[] }).entries;
    const audited: string[] = [];
    for (const route of routes) {
      const sample = SAMPLES[route.tool]!;
      const args = () => ({ ...sample.args(), ...REAL_TARGETS[route.tool] });
      await sample.before?.();
      const before = (await auditOf())[0]?.id ?? 0;
      const res = await apiCall(route, args(), readOnly);
      const body = (await res.json()) as Record<string, unknown>;
      const viaMcp = statusOfMcp((await client.callTool({ name: route.tool, arguments: args() })) as CallToolResult, body);
      // supervisor2_execute_send needs an approved action (the supervisor's whole claim and
      // decide path); for a missing one both answer NOT_FOUND before the effect is judged.
      const refusal = route.tool === 'supervisor2_execute_send' ? 404 : 403;
      expect([res.status, viaMcp.status], `${route.tool}: ${JSON.stringify(body)}`).toEqual([refusal, refusal]);
      expect(body.code).toBe(viaMcp.code);
      const rows = (await auditOf()).filter((r) => (r.id as number) > (before as number));
      // One row per call when the broker records the attempt (the same row for both).
      const facts = (r: Record<string, unknown>) => [r.actor, r.tool, r.session, r.binding, r.decision, r.error_code];
      if (rows.length > 0) {
        audited.push(route.tool);
        expect(rows.length, route.tool).toBe(2);
        expect(facts(rows[0]!), route.tool).toEqual(facts(rows[1]!));
      }
    }
    // The typing tools record every attempt; the lifecycle ones their door refusals.
    expect(audited).toEqual(expect.arrayContaining(['terminal_send_text', 'terminal_send_task', 'terminal_run', 'terminal_send_keys', 'project_dispatch']));
  }, 120_000);

  it('answers requests it cannot read with a 4xx and a code, never a 500', async () => {
    const auth = { authorization: `Bearer ${TOKEN}` };
    const cases: [string, RequestInit, number][] = [
      ['/api/v1/sessions/api-target/tail?lines=many', { headers: auth }, 400],
      ['/api/v1/sessions/api-target/tail?bogus=1', { headers: auth }, 400],
      ['/api/v1/sessions/%E0%A4%A/tail', { headers: auth }, 404],
      ['/api/v1/nothing-here', { headers: auth }, 404],
      ['/api/v1/sessions/api-target/send', { headers: auth }, 405],
      ['/api/v1/sessions/api-target/send', { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: '{not json' }, 400],
      ['/api/v1/sessions/api-target/send', { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: '[1]' }, 400],
      ['/api/v1/sessions/api-target/send', { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: '{"__proto__":{"x":1},"text":"a","dry_run":true}' }, 400],
      ['/api/v1/sessions/api-target/send', { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: '{"session":"other","text":"a"}' }, 400],
      ['/api/v1/sessions/api-target/send?text=a', { method: 'POST', headers: auth }, 400],
      ['/api/v1/sessions/api-target/send', { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ text: 'x'.repeat(2 * 1024 * 1024) }) }, 413],
    ];
    for (const [path, init, status] of cases) {
      const res = await fetch(`${base()}${path}`, init);
      const body = (await res.json()) as { code?: string; hint?: string };
      expect([res.status, typeof body.code, typeof body.hint], `${path} ${String(init.body ?? '').slice(0, 60)}`).toEqual([status, 'string', 'string']);
    }
  });
});
