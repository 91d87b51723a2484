// Node sessions through real MCP SDK clients over HTTP with OAuth tokens, against a real
// sshd and a real remote tmux: the gateway with a full token lists every host in one call,
// tails, types into and binds `gpu:agent-work` (the node's pane, never this host's of the
// same name) and says the node is EXECUTION_OK; with a read-only token (terminal:read) it
// reads the node's session but every typing or binding call is refused and the remote pane
// is unchanged; the observer (hosted Claude's read-only server) reads the node's session,
// redacted, and has no tool that could change it. terminal_batch_inspect reads both hosts in
// one call, in the order asked, and a node that is down fails its rows only.
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createGatewayLogger, ERROR_META_KEY, startGatewayHttp, type RunningGatewayHttp } from '@terminal-mcp/gateway';
import { createObserverLogger, startObserverHttp, type RunningObserverHttp } from '@terminal-mcp/observer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { textOf } from './helpers/answer-text.js';
import { startNodeFixture, type NodeFixture } from './helpers/node-fixture.js';
import { issueAccessToken } from './helpers/oauth-token.js';
import { createOperatorAccount } from './helpers/operator-account.js';
import { sshdUnavailable } from './helpers/sshd.js';
import type { TmuxTestServer } from './helpers/tmux-server.js';
import { waitFor } from './helpers/wait-for.js';

const unavailable = sshdUnavailable();
if (unavailable !== undefined) console.log(`skipping the node MCP tests: ${unavailable}`);

const USER = 'nadia';
const PASSWORD = 'node mcp passphrase 64';
const KEY = `sk-ant-api03-${'Hq4'.repeat(30)}ZZ`;

let fixture: NodeFixture | undefined;
let remote: TmuxTestServer;
let gw: RunningGatewayHttp | undefined;
let obs: RunningObserverHttp | undefined;
const clients: Client[] = [];

const accessToken = (role: 'gateway' | 'observer', resource: string, scope: string) =>
  issueAccessToken({ env: fixture!.broker.env, role, resource, scope, username: USER, password: PASSWORD, clientName: `nodes ${role}` });

async function mcp(url: string, token: string): Promise<Client> {
  const client = new Client({ name: 'nodes-mcp', version: '0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  clients.push(client);
  return client;
}

const call = (client: Client, name: string, args: Record<string, unknown>) => client.callTool({ name, arguments: args }) as Promise<CallToolResult>;
const errorCodeOf = (r: CallToolResult) => (r._meta?.[ERROR_META_KEY] as { error_code?: string } | undefined)?.error_code;
const remotePane = () => remote.tmux(['capture-pane', '-p', '-t', '=agent-work:']);

describe.skipIf(unavailable !== undefined)('node sessions through MCP SDK clients with OAuth tokens', () => {
  let full: Client;
  let readOnly: Client;
  let observer: Client;

  beforeAll(async () => {
    fixture = await startNodeFixture({
      config: {
        allowed_session_patterns: ['agent-*'],
        permissions: { terminal_input: true },
        input_policy: { allowed_session_patterns: ['agent-*'] },
        gateway: { toolsets: { default: ['core', 'input', 'bindings'] } },
      },
      sessions: async (here, there) => {
        await here.newSession('agent-work', `bash --norc --noprofile -c 'echo local-work-marker; exec bash --norc --noprofile'`);
        await there.newSession('agent-work', `bash --norc --noprofile -c 'echo node-work-marker; echo key=${KEY}; exec bash --norc --noprofile'`);
      },
    });
    remote = fixture.remote;
    await createOperatorAccount(fixture.broker.env, USER, PASSWORD);
    gw = await startGatewayHttp({ port: 0, env: fixture.broker.env, log: createGatewayLogger('silent'), oauth: true, registrationLimits: { perSource: 100 } });
    obs = await startObserverHttp({ port: 0, env: fixture.broker.env, log: createObserverLogger('silent'), registrationLimits: { perSource: 100 } });
    const gwUrl = gw.mcpUrl;
    const obsUrl = obs.mcpUrl;
    full = await mcp(gwUrl, await accessToken('gateway', gwUrl, 'terminal:read terminal:write terminal:input'));
    readOnly = await mcp(gwUrl, await accessToken('gateway', gwUrl, 'terminal:read'));
    observer = await mcp(obsUrl, await accessToken('observer', obsUrl, 'observer:read'));
  });

  afterAll(async () => {
    for (const c of clients) await c.close().catch(() => undefined);
    await gw?.close();
    await obs?.close();
    await fixture?.stop();
  });

  it('the gateway lists both hosts in one call, tails the node\'s session redacted, and says the node runs commands', async () => {
    const list = await call(full, 'terminal_list_sessions', {});
    expect(list.isError).toBeFalsy();
    expect(textOf(list)).toContain('gpu:agent-work');
    expect(textOf(list)).toMatch(/\bgpu\b[^\n]*\bup\b/);

    const tail = await call(full, 'terminal_tail', { session: 'gpu:agent-work' });
    expect(tail.isError).toBeFalsy();
    expect(textOf(tail)).toContain('node-work-marker');
    expect(textOf(tail)).not.toContain('local-work-marker');
    expect(textOf(tail)).toContain('[REDACTED');
    expect(JSON.stringify(tail)).not.toContain(KEY);

    const health = await call(full, 'terminal_node_health', {});
    expect(health.isError).toBeFalsy();
    expect(textOf(health)).toMatch(/gpu[^\n]*EXECUTION_OK/);
  });

  it('the gateway types into the node\'s session, runs a command there with its exit status and binds its pane; this host\'s session of the same name is untouched', async () => {
    const sent = await call(full, 'terminal_send_text', { session: 'gpu:agent-work', text: 'echo typed-over-mcp-$((3*14))', enter: true });
    expect(sent.isError, textOf(sent)).toBeFalsy();
    await waitFor('the text run on the node', async () => /^typed-over-mcp-42$/m.test(await remotePane()));
    expect(await fixture!.local.tmux(['capture-pane', '-p', '-t', '=agent-work:'])).not.toContain('typed-over-mcp');

    const bound = await call(full, 'terminal_bind', { binding: 'gpu-work', session: 'gpu:agent-work', input_enabled: true });
    expect(bound.isError, textOf(bound)).toBeFalsy();
    const boundTail = await call(full, 'terminal_tail_bound', { binding: 'gpu-work' });
    expect(textOf(boundTail)).toContain('typed-over-mcp-42');
    const boundSend = await call(full, 'terminal_send_bound', { binding: 'gpu-work', text: 'echo via-binding-$((2*8))', enter: true });
    expect(boundSend.isError, textOf(boundSend)).toBeFalsy();
    await waitFor('the bound text run on the node', async () => /^via-binding-16$/m.test(await remotePane()));

    // terminal_run on the node: the exit status and the output lines, the FIFO pair on the node.
    const ran = await call(full, 'terminal_run', { session: 'gpu:agent-work', command: 'echo run-over-mcp-$((6*7)); (exit 4)' });
    expect(ran.isError, textOf(ran)).toBeFalsy();
    expect(ran.structuredContent).toMatchObject({ state: 'DONE', exit_status: 4, session: 'gpu:agent-work', output: 'run-over-mcp-42' });
    expect(await fixture!.local.tmux(['capture-pane', '-p', '-t', '=agent-work:'])).not.toContain('run-over-mcp');
  });

  it('a read-only token reads the node\'s session, and every typing or binding call is refused with the pane unchanged', async () => {
    const tail = await call(readOnly, 'terminal_tail', { session: 'gpu:agent-work' });
    expect(tail.isError).toBeFalsy();
    expect(textOf(tail)).toContain('node-work-marker');
    const before = await remotePane();
    const codes: string[] = [];
    for (const [name, args] of [
      ['terminal_send_text', { session: 'gpu:agent-work', text: 'echo read-only-typed', enter: true }],
      ['terminal_send_keys', { session: 'gpu:agent-work', keys: ['C-c'] }],
      ['terminal_send_task', { session: 'gpu:agent-work', text: 'read-only task' }],
      ['terminal_run', { session: 'gpu:agent-work', command: 'echo read-only-run' }],
      ['terminal_send_bound', { binding: 'gpu-work', text: 'echo read-only-bound', enter: true }],
      ['terminal_bind', { binding: 'ro-bind', session: 'gpu:agent-work', input_enabled: true }],
    ] as const) {
      const r = await call(readOnly, name, args);
      // A task's refusal is its BLOCKED receipt (terminal_send_task answers with a state).
      if (name === 'terminal_send_task') expect(textOf(r)).toMatch(/^BLOCKED .*error_code INPUT_NOT_ALLOWED/s);
      else expect(r.isError, `${name}: ${textOf(r)}`).toBe(true);
      codes.push(`${name}:${errorCodeOf(r) ?? /error_code (\w+)/.exec(textOf(r))?.[1]}`);
    }
    expect(codes).toEqual(['terminal_send_text:INPUT_NOT_ALLOWED', 'terminal_send_keys:INPUT_NOT_ALLOWED', 'terminal_send_task:INPUT_NOT_ALLOWED', 'terminal_run:INPUT_NOT_ALLOWED', 'terminal_send_bound:INPUT_NOT_ALLOWED', 'terminal_bind:WRITE_NOT_ALLOWED']);
    expect(await remotePane()).toBe(before);
    expect(await remotePane()).not.toContain('read-only');
  });

  it('the observer reads the node\'s session, redacted, and lists no tool that could change it', async () => {
    const tools = (await observer.listTools()).tools.map((t) => t.name);
    expect(tools).toContain('terminal_tail');
    expect(tools.filter((t) => /send|bind|input|run|kill|start|restart|close|approve|note_add/.test(t))).toEqual([]);
    const tail = await call(observer, 'terminal_tail', { session: 'gpu:agent-work' });
    expect(tail.isError, textOf(tail)).toBeFalsy();
    expect(textOf(tail)).toContain('node-work-marker');
    expect(JSON.stringify(tail)).not.toContain(KEY);
    const list = await call(observer, 'terminal_list_sessions', {});
    expect(textOf(list)).toContain('gpu:agent-work');
    // A tool the observer does not have is no door either.
    const send = await call(observer, 'terminal_send_text', { session: 'gpu:agent-work', text: 'echo from-observer', enter: true }).catch((err: Error) => ({ isError: true, content: [{ type: 'text' as const, text: err.message }] }) as CallToolResult);
    expect(send.isError).toBe(true);
    expect(await remotePane()).not.toContain('from-observer');
  });

  it('terminal_batch_inspect reads this host\'s and the node\'s sessions in one call, in the order asked; a node that is down fails its rows only', async () => {
    const batch = async () => {
      const r = await call(full, 'terminal_batch_inspect', { sessions: ['gpu:agent-work', 'agent-work', 'cpu:agent-work', 'local:agent-work'], lines: 20 });
      expect(r.isError, textOf(r)).toBeFalsy();
      return textOf(r);
    };
    const text = await batch();
    const rows = (marker: string) => text.split('\n').filter((l) => l.includes(marker));
    // One row per name, in the order asked (the text is a table: a row per line).
    const order = ['gpu:agent-work', 'agent-work', 'cpu:agent-work', 'agent-work'].map((name) => text.indexOf(name));
    expect(order.every((at) => at >= 0)).toBe(true);
    expect(text).toContain('node-work-marker');
    expect(text).toContain('local-work-marker');
    expect(text).not.toContain(KEY);
    expect(rows('cpu:agent-work').join('\n')).toContain('SESSION_NOT_FOUND');
    // The read audit names the node's row as the node's session, with the node's id.
    await waitFor('the batch rows in the read audit', () => {
      const db = new Database(join(fixture!.broker.stateDir, 'audit.db'), { readonly: true });
      try {
        const rows = db.prepare("SELECT session_name, session_id, error_code FROM read_audit WHERE tool = 'terminal_batch_inspect' ORDER BY id").all() as { session_name: string; session_id: string | null; error_code: string | null }[];
        return rows.some((r) => r.session_name === 'gpu:agent-work' && /^gpu:\$\d+$/.test(r.session_id ?? '')) && rows.some((r) => r.session_name === 'cpu:agent-work' && r.error_code === 'SESSION_NOT_FOUND');
      } finally {
        db.close();
      }
    });

    await fixture!.sshd.kill();
    try {
      await waitFor('the node down', async () => /\bgpu\b[^\n]*\bdown\b/.test(textOf(await call(full, 'terminal_list_sessions', {}))));
      const down = await batch();
      expect(down.split('\n').filter((l) => l.includes('gpu:agent-work')).join('\n')).toContain('NODE_UNAVAILABLE');
      expect(down).toContain('local-work-marker');
    } finally {
      await fixture!.sshd.start();
    }
    await waitFor('the node up again', async () => (await batch()).includes('node-work-marker'));
  });
});
