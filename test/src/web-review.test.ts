// Review mode end to end (issue 30 item 1): an MCP client's input under input_policy.review is queued (QUEUED, nothing typed) until the operator approves it in the dashboard (headless Chromium), then arrives exactly once with both identities in the audit; rejection and expiry type nothing; no MCP client, observer or non-operator web.sock caller can approve, the proposer included.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createBrokerClient } from '@terminal-mcp/broker-client';
import { createGatewayLogger, startGatewayHttp, type RunningGatewayHttp } from '@terminal-mcp/gateway';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBrokerProcess, type BrokerProcess } from './helpers/broker-process.js';
import { startTmuxServer, type TmuxTestServer } from './helpers/tmux-server.js';
import { operatorSessionOf, signInFirstTime, startWebStack, waitFor, WEB_TEST_CONFIG, type WebStack } from './helpers/web-stack.js';

const TOKEN = 'review-e2e-token';
let root: string;
const clients: Client[] = [];

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'tmcp-review-e2e-'));
});
afterAll(async () => {
  await Promise.allSettled(clients.map((c) => c.close()));
  rmSync(root, { recursive: true, force: true });
});

async function connect(url: string): Promise<Client> {
  const client = new Client({ name: 'review-e2e', version: '0.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }));
  clients.push(client);
  return client;
}
const call = (client: Client, name: string, args: Record<string, unknown> = {}) => client.callTool({ name, arguments: args }) as Promise<CallToolResult>;
const structured = <T>(r: CallToolResult) => r.structuredContent as T;
const textOf = (r: CallToolResult) => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
/** terminal_send_text answers in text: QUEUED with its approval_id, or what it typed. */
function sendAnswer(r: CallToolResult): Queued {
  const m = /^QUEUED .* approval_id (\d+) /.exec(textOf(r));
  return m ? { result: 'QUEUED', approval_id: Number(m[1]) } : { result: /^Typed /.test(textOf(r)) ? 'SENT' : textOf(r), approval_id: 0 };
}

/** A pane whose program appends every line it reads to a file: what arrived, and how often. */
async function linePane(tmux: TmuxTestServer, name: string) {
  const out = join(root, `${name}.lines`);
  const ready = `${out}.ready`;
  await tmux.newSession(name, `exec bash --norc --noprofile -c 'touch ${ready}; while IFS= read -r line; do printf "%s\\n" "$line" >> ${out}; done'`, { width: 120, height: 30 });
  await waitFor(`${name} ready`, () => existsSync(ready));
  return { lines: () => (existsSync(out) ? readFileSync(out, 'utf8').split('\n').slice(0, -1) : []) };
}

/** A raw tRPC call on a broker socket, as any process that can open it (optionally with an
 * operator session header, as the dashboard's server sends it). */
function trpc(socketPath: string, path: string, input: unknown, headers: Record<string, string> = {}, method: 'POST' | 'GET' = 'POST'): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const url = method === 'GET' ? `/${path}?input=${encodeURIComponent(JSON.stringify(input))}` : `/${path}`;
    const req = request(
      { socketPath, method, path: url, headers: { host: 'broker.local', 'content-type': 'application/json', ...headers } },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    req.end(method === 'GET' ? undefined : JSON.stringify(input));
  });
}

interface Queued {
  result: string;
  approval_id: number;
}
interface Approval {
  state: string;
  decided: boolean;
  decided_by: string | null;
  proposed_by: string;
  delivery_audit_id: number | null;
}

function auditRows(stateDir: string, session: string) {
  const db = new Database(join(stateDir, 'audit.db'), { readonly: true });
  try {
    return db.prepare('SELECT id, role, actor, tool, decision, error_code, preview, receipt, receipt_json FROM input_audit WHERE session_name = ? ORDER BY id').all(session) as {
      id: number;
      role: string;
      actor: string;
      tool: string;
      decision: string;
      error_code: string | null;
      preview: string | null;
      receipt: string | null;
      receipt_json: string | null;
    }[];
  } finally {
    db.close();
  }
}

describe('review mode with the dashboard (production build, real broker, real MCP client)', { timeout: 300_000 }, () => {
  let stack: WebStack;
  let page: Page;
  let gw: RunningGatewayHttp;

  beforeAll(async () => {
    stack = await startWebStack({ config: { ...WEB_TEST_CONFIG, input_policy: { ...WEB_TEST_CONFIG.input_policy, review: 'always' } } });
    gw = await startGatewayHttp({ port: 0, env: stack.broker.env, log: createGatewayLogger('silent'), token: TOKEN });
    const context = await stack.browser.newContext({ locale: 'en-US', viewport: { width: 1280, height: 900 } });
    page = await context.newPage();
    await signInFirstTime(page, stack);
  }, 240_000);
  afterAll(async () => {
    await gw?.close();
    await stack?.stop();
  });

  it('queues the input, refuses every self-approval, and types it exactly once when the operator approves in the browser', async () => {
    const pane = await linePane(stack.tmux, 'claude-review');
    const agent = await connect(gw.mcpUrl);
    const sent = await call(agent, 'terminal_send_text', { session: 'claude-review', text: 'echo approved-once', enter: true });
    expect(sent.isError).toBeFalsy();
    const queued = sendAnswer(sent);
    expect(queued.result).toBe('QUEUED');
    const id = queued.approval_id;

    // Self-approval, through every client and socket that is not a signed-in operator.
    const sockets = stack.broker.socketDir;
    for (const role of ['gateway', 'observer'] as const) {
      for (const path of ['review.approve', 'review.reject']) {
        const r = await trpc(join(sockets, `${role}.sock`), path, { approval_id: id });
        expect(r.status, `${role} ${path}`).toBe(404);
      }
    }
    // web.sock without an operator session, and with a forged one.
    for (const headers of [{}, { 'x-terminal-mcp-operator-session': 'forged-session-token' }] as Record<string, string>[]) {
      const r = await trpc(join(sockets, 'web.sock'), 'review.approve', { approval_id: id }, headers);
      expect(r.status).toBe(401);
      expect(r.body).toContain('UNAUTHENTICATED');
    }
    // The supervisor's approval (which any other MCP client may give) does not reach this queue.
    const gwBroker = createBrokerClient({ role: 'gateway', socketPath: join(sockets, 'gateway.sock') });
    await expect(gwBroker.supervisor2.reviewAction.mutate({ action_id: id, decision: 'approve' })).rejects.toThrow();
    // The MCP catalogue offers no way to approve.
    const { tools } = await agent.listTools();
    expect(tools.map((t) => t.name).filter((n) => /approv|review/.test(n) && n !== 'terminal_wait_for_approval')).toEqual([]);
    // Still pending, nothing typed.
    const still = structured<Approval>(await call(agent, 'terminal_wait_for_approval', { approval_id: id, timeout_s: 0 }));
    expect(still).toMatchObject({ state: 'pending', decided: false });
    expect(pane.lines()).toEqual([]);

    // The person was told, without the text.
    const notices = await trpc(join(sockets, 'web.sock'), 'human.notices', {}, { 'x-terminal-mcp-operator-session': await operatorSessionOf(page) }, 'GET');
    expect(notices.body).toContain('approval_needed');
    expect(notices.body).toContain(`approval ${id}`);
    expect(notices.body).not.toContain('approved-once');

    // The operator sees the exact text and target, and approves.
    await page.goto(`${stack.baseUrl}/review`);
    const item = page.locator(`[data-approval="${id}"][data-state="pending"]`);
    await item.waitFor();
    expect(await item.getByTestId('text').innerText()).toBe('echo approved-once');
    expect(await item.getByTestId('target').innerText()).toContain('claude-review %');
    const waiting = call(agent, 'terminal_wait_for_approval', { approval_id: id, timeout_s: 60 });
    await item.getByTestId('approve').click();
    await page.locator(`[data-approval="${id}"][data-state="sent"]`).waitFor();
    const decided = structured<Approval>(await waiting);
    expect(decided).toMatchObject({ state: 'sent', decided: true, decided_by: 'web:admin' });
    await waitFor('the approved line in the pane', () => pane.lines().length > 0);

    // A second approval (double click, another operator) sends nothing more.
    const operator = await operatorSessionOf(page);
    const again = await trpc(join(sockets, 'web.sock'), 'review.approve', { approval_id: id }, { 'x-terminal-mcp-operator-session': operator });
    expect(again.body).toContain('ACTION_CONFLICT');
    expect(pane.lines()).toEqual(['echo approved-once']);

    const rows = auditRows(stack.broker.stateDir, 'claude-review');
    const queuedRow = rows.find((r) => r.id === id)!;
    expect(queuedRow).toMatchObject({ decision: 'QUEUED', role: 'gateway', tool: 'terminal_send_text', preview: 'echo approved-once' });
    const sentRows = rows.filter((r) => r.decision === 'SENT');
    expect(sentRows).toHaveLength(1);
    expect(sentRows[0]!.id).toBe(decided.delivery_audit_id);
    expect(JSON.parse(sentRows[0]!.receipt_json!)).toEqual({ review: { approval_id: id, proposed_by: decided.proposed_by, approved_by: 'web:admin' } });
  });

  it('types nothing when the operator rejects in the browser', async () => {
    const pane = await linePane(stack.tmux, 'claude-reject');
    const agent = await connect(gw.mcpUrl);
    const queued = sendAnswer(await call(agent, 'terminal_send_text', { session: 'claude-reject', text: 'echo must-not-arrive', enter: true }));
    expect(queued.result).toBe('QUEUED');
    await page.goto(`${stack.baseUrl}/review`);
    await page.locator(`[data-approval="${queued.approval_id}"]`).getByTestId('reject').click();
    await page.locator(`[data-approval="${queued.approval_id}"][data-state="rejected"]`).waitFor();
    expect(structured<Approval>(await call(agent, 'terminal_wait_for_approval', { approval_id: queued.approval_id, timeout_s: 0 }))).toMatchObject({ state: 'rejected', decided_by: 'web:admin' });
    // An approval after the rejection is refused too.
    const operator = await operatorSessionOf(page);
    expect((await trpc(join(stack.broker.socketDir, 'web.sock'), 'review.approve', { approval_id: queued.approval_id }, { 'x-terminal-mcp-operator-session': operator })).body).toContain('ACTION_CONFLICT');
    // A line sent after it arrives first and alone: nothing of the rejected text is queued in the pane.
    await stack.tmux.tmux(['send-keys', '-t', 'claude-reject', '-l', 'marker']);
    await stack.tmux.tmux(['send-keys', '-t', 'claude-reject', 'Enter']);
    await waitFor('the marker line', () => pane.lines().length > 0);
    expect(pane.lines()).toEqual(['marker']);
    const rows = auditRows(stack.broker.stateDir, 'claude-reject');
    expect(rows.map((r) => r.decision)).toEqual(['QUEUED', 'BLOCKED']);
    expect(rows[1]).toMatchObject({ receipt: 'REJECTED', preview: null });
    expect(JSON.parse(rows[1]!.receipt_json!).review).toMatchObject({ approval_id: queued.approval_id, rejected_by: 'web:admin' });
  });
});

describe('review mode: an input nobody decides on expires and is never sent', { timeout: 180_000 }, () => {
  let tmux: TmuxTestServer;
  let broker: BrokerProcess;
  let gw: RunningGatewayHttp;

  beforeAll(async () => {
    tmux = await startTmuxServer();
    broker = await startBrokerProcess({
      tmuxSocket: tmux.socketName,
      config: {
        permissions: { terminal_read: true, terminal_input: true },
        allowed_session_patterns: ['agent-*'],
        input_policy: { allowed_session_patterns: ['agent-*'], review: 'risky', review_timeout_seconds: 10 },
        log_level: 'warn',
      },
    });
    gw = await startGatewayHttp({ port: 0, env: broker.env, log: createGatewayLogger('silent'), token: TOKEN });
  });
  afterAll(async () => {
    await gw?.close();
    await broker?.stop();
    await tmux?.kill();
  });

  it('sends plain text at once under risky, queues a destructive one, and lets it expire', async () => {
    const pane = await linePane(tmux, 'agent-expire');
    const agent = await connect(gw.mcpUrl);
    expect(sendAnswer(await call(agent, 'terminal_send_text', { session: 'agent-expire', text: 'echo harmless', enter: true })).result).toBe('SENT');
    await waitFor('the harmless line', () => pane.lines().length === 1);
    const queued = sendAnswer(await call(agent, 'terminal_send_text', { session: 'agent-expire', text: 'rm -rf /tmp/nothing-here', enter: true }));
    expect(queued.result).toBe('QUEUED');
    let view: Approval | undefined;
    await waitFor('the expiry', async () => {
      view = structured<Approval>(await call(agent, 'terminal_wait_for_approval', { approval_id: queued.approval_id, timeout_s: 20 }));
      return view.decided;
    });
    expect(view).toMatchObject({ state: 'expired', decided_by: 'broker:review_timeout' });
    await tmux.tmux(['send-keys', '-t', 'agent-expire', '-l', 'marker']);
    await tmux.tmux(['send-keys', '-t', 'agent-expire', 'Enter']);
    await waitFor('the marker line', () => pane.lines().length === 2);
    expect(pane.lines()).toEqual(['echo harmless', 'marker']);
    const rows = auditRows(broker.stateDir, 'agent-expire');
    expect(rows.map((r) => [r.decision, r.receipt])).toEqual([
      ['SENT', null],
      ['QUEUED', null],
      ['BLOCKED', 'EXPIRED'],
    ]);
  });
});
