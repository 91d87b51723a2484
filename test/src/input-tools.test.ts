// Guards the input tools end to end (SDK client → HTTP gateway → broker process → private tmux): deliberate annotations, exact delivery of hostile text, receipts, bindings and the audit log over MCP, and at-most-once delivery when the broker is SIGKILLed between the audit row and the send.
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createGatewayLogger, ERROR_META_KEY, parseRows, startGatewayHttp, type RunningGatewayHttp } from '@terminal-mcp/gateway';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBrokerProcess, type BrokerProcess } from './helpers/broker-process.js';
import { startTmuxServer, type TmuxTestServer } from './helpers/tmux-server.js';
import { writeRawReader } from './helpers/raw-reader.js';

const CONFIG = {
  permissions: { terminal_read: true, terminal_input: true },
  allowed_session_patterns: ['agent-*'],
  input_policy: { allowed_session_patterns: ['agent-*'] },
  log_level: 'warn',
  // The binding tools are not in the default catalogue.
  gateway: { toolsets: { default: ['input', 'bindings'] } },
};

let root: string;
let readerScript: string;
const clients: Client[] = [];

async function until(what: string, check: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** The gateways here take this bearer token: a caller without one is the anonymous
 * principal, which has no input audit of its own. */
const TOKEN = 'input-e2e-token';

async function connect(url: string): Promise<Client> {
  const client = new Client({ name: 'input-e2e', version: '0.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }));
  clients.push(client);
  return client;
}

const call = (client: Client, name: string, args: Record<string, unknown> = {}) => client.callTool({ name, arguments: args }) as Promise<CallToolResult>;
const errorCodeOf = (r: CallToolResult) => (r._meta?.[ERROR_META_KEY] as { error_code?: string } | undefined)?.error_code;
const textOf = (r: CallToolResult) => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');

/** A pane whose program writes every byte its terminal delivers to a file (raw mode). */
async function rawPane(tmux: TmuxTestServer, name: string) {
  const out = join(root, `${name}.out`);
  const ready = `${out}.ready`;
  await tmux.newSession(name, `exec python3 ${readerScript} ${out} ${ready}`, { width: 120, height: 30 });
  await until(`${name} ready`, () => existsSync(ready));
  const size = () => (existsSync(out) ? statSync(out).size : 0);
  return { size, read: () => (existsSync(out) ? readFileSync(out).toString('utf8').replaceAll('\r', '\n') : '') };
}

/** A pane whose program appends every line it reads (cooked mode, echoed) to a file. */
async function linePane(tmux: TmuxTestServer, name: string) {
  const out = join(root, `${name}.lines`);
  const ready = `${out}.ready`;
  await tmux.newSession(name, `exec bash --norc --noprofile -c 'touch ${ready}; while IFS= read -r line; do printf "%s\\n" "$line" >> ${out}; done'`, {
    width: 120,
    height: 30,
  });
  await until(`${name} ready`, () => existsSync(ready));
  return { lines: () => (existsSync(out) ? readFileSync(out, 'utf8').split('\n').slice(0, -1) : []) };
}

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'tmcp-input-e2e-'));
  readerScript = writeRawReader(root);
});

afterAll(async () => {
  await Promise.allSettled(clients.map((c) => c.close()));
  rmSync(root, { recursive: true, force: true });
});

describe('input tools over MCP with a live broker', () => {
  let tmux: TmuxTestServer;
  let broker: BrokerProcess;
  let gw: RunningGatewayHttp;

  beforeAll(async () => {
    tmux = await startTmuxServer();
    broker = await startBrokerProcess({ tmuxSocket: tmux.socketName, config: CONFIG });
    gw = await startGatewayHttp({ port: 0, env: broker.env, log: createGatewayLogger('silent'), token: TOKEN });
  });
  afterAll(async () => {
    await gw?.close();
    await broker?.stop();
    await tmux?.kill();
  });

  it('annotates every input tool deliberately', async () => {
    const { tools } = await (await connect(gw.mcpUrl)).listTools();
    const byName = new Map(tools.map((t) => [t.name, t]));
    for (const name of ['terminal_send_text', 'terminal_send_bound', 'terminal_send_task']) {
      expect(byName.get(name)?.annotations, name).toMatchObject({ readOnlyHint: false, destructiveHint: false, openWorldHint: false });
    }
    expect(byName.get('terminal_send_keys')?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    for (const name of ['terminal_input_context', 'terminal_list_input_audit', 'terminal_get_binding', 'terminal_list_bindings', 'terminal_tail_bound', 'terminal_status_bound']) {
      expect(byName.get(name)?.annotations, name).toMatchObject({ readOnlyHint: true });
    }
    for (const name of ['terminal_bind', 'terminal_unbind']) expect(byName.get(name)?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false });
  });

  it('delivers hostile text as exactly those bytes, runs nothing, and audits it with the client as actor', async () => {
    const pane = await rawPane(tmux, 'agent-raw');
    const client = await connect(gw.mcpUrl);
    const pwned = join(root, 'pwned');
    const text = `-t x ; kill-server ;\n#(touch ${pwned})$(touch ${pwned})\`touch ${pwned}\` 'q' "qq" ✓;`;
    const result = await call(client, 'terminal_send_text', { session: 'agent-raw', text });
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toMatch(/^Typed \d+ character\(s\) into session "agent-raw" pane %\d+\. Audit id \d+\.$/);
    await until('the text in the pane', () => pane.size() >= Buffer.byteLength(text));
    expect(pane.read()).toBe(text);
    expect(existsSync(pwned)).toBe(false);
    expect((await tmux.tmux(['list-sessions', '-F', '#{session_name}'])).split('\n').sort()).toEqual(['__terminal_mcp_control', 'agent-raw']);

    const refused = await call(client, 'terminal_send_text', { session: 'agent-raw', text: 'x\x1b[201~y' });
    expect(refused.isError).toBe(true);
    expect(errorCodeOf(refused)).toBe('TEXT_REJECTED');
    expect(textOf(refused)).toMatch(/character 2 is U\+001B \(ESC\)/);

    const audit = await call(client, 'terminal_list_input_audit', { session: 'agent-raw' });
    const entries = parseRows(textOf(audit), 'id');
    expect(entries.map((e) => [e.decision, e.error_code])).toEqual([
      ['BLOCKED', 'TEXT_REJECTED'],
      ['SENT', null],
    ]);
    // The actor is who authenticated (the static token), never the client's clientInfo.name.
    expect(entries.map((e) => e.actor)).toEqual(['gateway:token', 'gateway:token']);
  });

  it('refusals are isError results with the gate and a hint', async () => {
    await tmux.newSession('other-one', 'exec sleep 3600');
    const client = await connect(gw.mcpUrl);
    const result = await call(client, 'terminal_send_keys', { session: 'other-one', keys: ['Enter'] });
    expect(result.isError).toBe(true);
    expect(errorCodeOf(result)).toBe('INPUT_NOT_ALLOWED');
    const keys = await call(client, 'terminal_send_keys', { session: 'agent-raw', keys: ['C-c'] });
    expect(errorCodeOf(keys)).toBe('CONFIRMATION_REQUIRED');
    expect(textOf(keys)).toMatch(/Hint: .*confirm_sensitive/);
  });

  it('send_task returns SUBMIT_CONFIRMED, replays by idempotency key, and works through a binding', async () => {
    const pane = await linePane(tmux, 'agent-lines');
    const client = await connect(gw.mcpUrl);
    const first = await call(client, 'terminal_send_task', { session: 'agent-lines', text: 'run the tests', idempotency_key: 'task-1' });
    expect(first.isError).toBeFalsy();
    expect(first.structuredContent).toMatchObject({ receipt: 'SUBMIT_CONFIRMED', enter_pressed: true, replayed: false });
    const replay = await call(client, 'terminal_send_task', { session: 'agent-lines', text: 'run the tests', idempotency_key: 'task-1' });
    expect(replay.structuredContent).toMatchObject({ receipt: 'SUBMIT_CONFIRMED', replayed: true });
    expect(textOf(replay)).toMatch(/replayed/);

    const bound = await call(client, 'terminal_bind', { binding: 'tests', session: 'agent-lines', input_enabled: true });
    expect(textOf(bound)).toMatch(/^CREATED: Binding "tests" → session "agent-lines" \(\$\d+, pane %\d+\): OK; input enabled\.$/);
    const viaBinding = await call(client, 'terminal_send_task', { binding: 'tests', text: 'second task' });
    expect(viaBinding.structuredContent).toMatchObject({ receipt: 'SUBMIT_CONFIRMED', binding: 'tests' });
    await until('two lines', () => pane.lines().length === 2);
    expect(pane.lines()).toEqual(['run the tests', 'second task']);

    const context = await call(client, 'terminal_input_context', { binding: 'tests' });
    expect(textOf(context)).toMatch(/^binding "tests" → session "agent-lines" pane %\d+: \w+ .*command "bash"/);
    expect(textOf(context)).toContain('Text: would be accepted.');
    const tail = await call(client, 'terminal_tail_bound', { binding: 'tests' });
    expect(textOf(tail)).toContain('second task');
    const blocked = await call(client, 'terminal_send_task', { session: 'other-one', text: 'nope' });
    expect(blocked.structuredContent).toMatchObject({ receipt: 'BLOCKED', error_code: 'INPUT_NOT_ALLOWED' });
  });
});

describe('receipts that tell the truth (real prompts)', () => {
  let tmux: TmuxTestServer;
  let broker: BrokerProcess;
  let gw: RunningGatewayHttp;

  beforeAll(async () => {
    tmux = await startTmuxServer();
    broker = await startBrokerProcess({ tmuxSocket: tmux.socketName, config: CONFIG });
    gw = await startGatewayHttp({ port: 0, env: broker.env, log: createGatewayLogger('silent'), token: TOKEN });
  });
  afterAll(async () => {
    await gw?.close();
    await broker?.stop();
    await tmux?.kill();
  });

  const paneText = (name: string) => tmux.tmux(['capture-pane', '-p', '-t', `=${name}:`]);

  it('confirms a y answer to read -p: the prompt line is consumed although its prompt already holds a y', async () => {
    const answer = join(root, 'answer.txt');
    // The foreground stays bash after the answer (a second read), so only the screen tells.
    await tmux.newSession('agent-ask', `exec bash --norc --noprofile -c 'read -r -p "Continue? [y/N] " a; printf "%s" "$a" > ${answer}; read -r _'`, { width: 100, height: 20 });
    await until('the prompt', async () => (await paneText('agent-ask')).includes('Continue? [y/N]'));
    const client = await connect(gw.mcpUrl);
    const result = await call(client, 'terminal_send_task', { session: 'agent-ask', text: 'y' });
    expect(result.structuredContent).toMatchObject({ receipt: 'SUBMIT_CONFIRMED', text_landed: true, enter_pressed: true });
    await until('the answer', () => existsSync(answer) && readFileSync(answer, 'utf8') === 'y');
  });

  it('says NEEDS_ENTER while python or bash waits at a continuation prompt, and SUBMIT_CONFIRMED once it ran', async () => {
    await tmux.newSession('agent-py', 'exec python3 -q', { width: 100, height: 20 });
    await until('the python prompt', async () => (await paneText('agent-py')).includes('>>>'));
    const client = await connect(gw.mcpUrl);
    const block = await call(client, 'terminal_send_task', { session: 'agent-py', text: 'for i in range(3):\n    print("row", i * 7)' });
    expect(block.structuredContent).toMatchObject({ receipt: 'NEEDS_ENTER', text_landed: true, enter_pressed: true });
    expect(textOf(block)).toMatch(/continuation prompt "\.\.\."[^]*terminal_send_keys/);
    expect(await paneText('agent-py')).not.toContain('row 14');
    await call(client, 'terminal_send_keys', { session: 'agent-py', keys: ['Enter'] });
    await until('the block ran', async () => (await paneText('agent-py')).includes('row 14'));

    const single = await call(client, 'terminal_send_task', { session: 'agent-py', text: 'print(6 * 7)' });
    expect(single.structuredContent).toMatchObject({ receipt: 'SUBMIT_CONFIRMED' });
    await until('42', async () => (await paneText('agent-py')).includes('42'));

    await tmux.newSession('agent-sh', "exec env PS1='$ ' bash --norc --noprofile -i", { width: 100, height: 20 });
    await until('the shell prompt', async () => (await paneText('agent-sh')).includes('$'));
    const heredoc = await call(client, 'terminal_send_task', { session: 'agent-sh', text: 'cat <<EOF' });
    expect(heredoc.structuredContent).toMatchObject({ receipt: 'NEEDS_ENTER' });
    expect(textOf(heredoc)).toMatch(/continuation prompt ">"/);
  });
});

describe('a broker killed between the audit row and the send', () => {
  let tmux: TmuxTestServer;
  let broker: BrokerProcess;
  let gw: RunningGatewayHttp;

  beforeAll(async () => {
    tmux = await startTmuxServer();
    // Test-only fault injection (effects/fault-injection.ts): SIGKILL right after the audit write.
    broker = await startBrokerProcess({ tmuxSocket: tmux.socketName, config: CONFIG, env: { TERMINAL_MCP_TEST_CRASH_AFTER_AUDIT: '1' } });
    gw = await startGatewayHttp({ port: 0, env: broker.env, log: createGatewayLogger('silent'), token: TOKEN });
  });
  afterAll(async () => {
    await gw?.close();
    await broker?.stop();
    await tmux?.kill();
  });

  it('delivers at most once and reports DELIVERY_UNKNOWN after the restart; a retry with the same key sends nothing', async () => {
    const pane = await rawPane(tmux, 'agent-crash');
    const client = await connect(gw.mcpUrl);
    const first = await call(client, 'terminal_send_task', { session: 'agent-crash', text: 'deploy once', idempotency_key: 'crash-1' }).catch((e: unknown) => e);
    // The broker died mid-call, after the audit row: the text may have been typed, and the
    // gateway says exactly that (issue 43: not BROKER_UNAVAILABLE, which means "not sent").
    if (!(first instanceof Error)) expect(errorCodeOf(first as CallToolResult)).toBe('DELIVERY_UNKNOWN');
    expect(await broker.exited()).toMatchObject({ signal: 'SIGKILL' });

    broker = await broker.restart({ env: { TERMINAL_MCP_TEST_CRASH_AFTER_AUDIT: undefined } });
    const audit = await call(client, 'terminal_list_input_audit', { session: 'agent-crash' });
    expect(parseRows(textOf(audit), 'id')).toEqual([
      expect.objectContaining({ decision: 'DELIVERY_UNKNOWN', tool: 'terminal_send_task', receipt: 'DELIVERY_UNKNOWN', text_length: 11 }),
    ]);

    const retry = await call(client, 'terminal_send_task', { session: 'agent-crash', text: 'deploy once', idempotency_key: 'crash-1' });
    expect(retry.structuredContent).toMatchObject({ receipt: 'DELIVERY_UNKNOWN', replayed: true });
    await new Promise((r) => setTimeout(r, 300));
    expect(pane.size()).toBe(0);
    // The retry is audited as a replay (nothing sent), next to the one real attempt.
    expect(parseRows(textOf(await call(client, 'terminal_list_input_audit', { session: 'agent-crash' })), 'id')).toEqual([
      expect.objectContaining({ decision: 'BLOCKED', receipt: 'REPLAYED', error_code: null, preview: null }),
      expect.objectContaining({ decision: 'DELIVERY_UNKNOWN', receipt: 'DELIVERY_UNKNOWN' }),
    ]);
  });
});
