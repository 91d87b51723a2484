// Guards: the stdio MCP gateway, end to end (real broker process, private tmux server, SDK client), serves only what the broker allows and writes nothing but MCP to stdout.
import { spawn } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ERROR_META_KEY, parseRows } from '@terminal-mcp/gateway';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBrokerProcess, type BrokerProcess } from './helpers/broker-process.js';
import { repoPath } from './helpers/repo.js';
import { startTmuxServer, type TmuxTestServer } from './helpers/tmux-server.js';
import { APPS_HOST_OPTIONS } from './helpers/apps-host.js';

const STDIO_BIN = repoPath('services/gateway/dist/bin/stdio.js');
const ALLOWED = 'allowed-stdio';
const DENIED = 'private-stdio';
const ALLOWED_MARK = 'stdio-allowed-c3f1';
const DENIED_MARK = 'stdio-secret-72ad';

let tmux: TmuxTestServer;
let broker: BrokerProcess;
let client: Client;

async function waitForPaneText(session: string, mark: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if ((await tmux.tmux(['capture-pane', '-p', '-t', `${session}:`])).includes(mark)) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${mark} never appeared in ${session}`);
}

/** The environment a client gives the stdio gateway: the broker's, minus TMUX. */
function gatewayEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(broker.env)) if (v !== undefined && k !== 'TMUX' && k !== 'TMUX_PANE') env[k] = v;
  return { ...env, TERMINAL_MCP_LOG_LEVEL: 'warn', ...extra };
}

const call = (name: string, args: Record<string, unknown> = {}) => client.callTool({ name, arguments: args }) as Promise<CallToolResult>;
const textOf = (r: CallToolResult) => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
const errorCodeOf = (r: CallToolResult) => (r._meta?.[ERROR_META_KEY] as { error_code?: string } | undefined)?.error_code;

beforeAll(async () => {
  tmux = await startTmuxServer();
  await tmux.newSession(ALLOWED, `echo ${ALLOWED_MARK}; exec sleep 3600`);
  await tmux.newSession(DENIED, `echo ${DENIED_MARK}; exec sleep 3600`);
  await waitForPaneText(ALLOWED, ALLOWED_MARK);
  await waitForPaneText(DENIED, DENIED_MARK);
  broker = await startBrokerProcess({ tmuxSocket: tmux.socketName, config: { allowed_session_patterns: ['allowed-*'], log_level: 'warn', gateway: { toolsets: { stdio: ['input', 'transcripts', 'bindings'] } } } });
  client = new Client({ name: 'gateway-stdio-e2e', version: '0.0.0' }, APPS_HOST_OPTIONS);
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [STDIO_BIN], env: gatewayEnv(), stderr: 'pipe' }));
});

afterAll(async () => {
  await client?.close();
  await broker?.stop();
  await tmux?.kill();
});

describe('MCP over stdio with a live broker', () => {
  it('lists the read tools, all read-only', async () => {
    const { tools } = await client.listTools();
    // Input and binding tools are checked in input-tools.test.ts, note tools in note-tools.test.ts, terminal_request_human (it reaches a person) in web-secret-entry.test.ts; everything else is read-only.
    const reads = tools.filter((t) => t.name.startsWith('terminal_') && !/^terminal_(send_|run$|bind$|unbind$|request_human$)/.test(t.name));
    expect(reads.map((t) => t.name).sort()).toEqual([
      'terminal_batch_inspect',
      'terminal_capture',
      'terminal_export_transcript',
      'terminal_get_binding',
      'terminal_input_context',
      'terminal_list_bindings',
      'terminal_list_input_audit',
      'terminal_list_panes',
      'terminal_list_sessions',
      'terminal_node_health',
      'terminal_read_since',
      'terminal_resume_wait',
      'terminal_status',
      'terminal_status_bound',
      'terminal_tail',
      'terminal_tail_bound',
      'terminal_wait_for_approval',
      'terminal_wait_for_state',
    ]);
    for (const t of reads) expect(t.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
  });

  it('discovery lists allowed and denied sessions with the right access', async () => {
    const result = await call('terminal_list_sessions');
    const sessions = parseRows(textOf(result), 'name');
    expect(sessions.find((s) => s.name === ALLOWED)?.access).toBe('r');
    expect(sessions.find((s) => s.name === DENIED)?.access).toBe('-');
  });

  it('tail of an allowed session returns what was printed in it', async () => {
    const result = await call('terminal_tail', { session: ALLOWED });
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toContain(ALLOWED_MARK);
  });

  it('tail of a denied session is SESSION_NOT_ALLOWED and reveals none of its text', async () => {
    const result = await call('terminal_tail', { session: DENIED });
    expect(result.isError).toBe(true);
    expect(errorCodeOf(result)).toBe('SESSION_NOT_ALLOWED');
    expect(JSON.stringify(result)).not.toContain(DENIED_MARK);
  });

  it('an unknown session is SESSION_NOT_FOUND, with close matches from the list', async () => {
    const result = await call('terminal_status', { session: 'allowed-missing' });
    expect(result.isError).toBe(true);
    expect(errorCodeOf(result)).toBe('SESSION_NOT_FOUND');
    const typo = await call('terminal_tail', { session: 'allowed-stdoi' });
    expect(errorCodeOf(typo)).toBe('SESSION_NOT_FOUND');
    expect(textOf(typo)).toContain(`close matches: "${ALLOWED}"`);
    // Even a denied session is named (discovery lists it), never its content.
    const near = await call('terminal_tail', { session: 'private-stdi' });
    expect(textOf(near)).toContain(`close matches: "${DENIED}"`);
    expect(JSON.stringify(near)).not.toContain(DENIED_MARK);
  });

  it('takes the original press_enter and refuses unknown arguments instead of dropping them', async () => {
    // Input is off here: getting past the argument check to INPUT_DISABLED shows press_enter was accepted.
    const aliased = await call('terminal_send_text', { session: ALLOWED, text: 'echo hi', press_enter: true, dry_run: true });
    expect(errorCodeOf(aliased)).toBe('INPUT_DISABLED');
    expect(textOf(aliased)).toContain('permissions.terminal_input');
    const typo = await call('terminal_send_text', { session: ALLOWED, text: 'echo hi', press_entr: true, dry_run: true });
    expect(errorCodeOf(typo)).toBe('INVALID_ARGUMENT');
    expect(textOf(typo)).toContain('unknown argument "press_entr"; did you mean "enter"?');
  });
});

describe('stdout discipline and lifecycle', () => {
  it('counts in redactions only the secrets inside the returned lines', async () => {
    const key = `sk-ant-api03-${'R4t'.repeat(30)}AA`;
    await tmux.newSession('allowed-redact', `echo "key=${key}"; echo plain-one; echo plain-two; exec sleep 3600`);
    await waitForPaneText('allowed-redact', 'plain-two');
    const short = await call('terminal_tail', { session: 'allowed-redact', lines: 2 });
    expect(short.structuredContent).toMatchObject({ text: 'plain-one\nplain-two', redactions: 0 });
    expect(textOf(short)).not.toMatch(/redacted/i);
    const long = await call('terminal_tail', { session: 'allowed-redact', lines: 10 });
    expect(long.structuredContent).toMatchObject({ redactions: 1 });
    expect((long.structuredContent as { text: string }).text).toContain('[REDACTED');
    const batch = await call('terminal_batch_inspect', { sessions: ['allowed-redact'], lines: 2 });
    expect(textOf(batch).split('\n')[0]).toMatch(/^== "allowed-redact": .* redactions=0 /);
  });

  it('writes only JSON-RPC lines to stdout, starts without a broker and exits when stdin closes', async () => {
    // A socket dir with no broker: every tool call must still answer, as BROKER_UNAVAILABLE.
    const child = spawn(process.execPath, [STDIO_BIN], {
      env: gatewayEnv({ TERMINAL_MCP_SOCKET_DIR: `${broker.socketDir}-absent`, TERMINAL_MCP_LOG_LEVEL: 'debug' }),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const send = (msg: unknown) => child.stdin.write(`${JSON.stringify(msg)}\n`);
    send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } });
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'terminal_tail', arguments: { session: ALLOWED } } });

    const deadline = Date.now() + 15_000;
    while (!stdout.includes('"id":2') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    child.stdin.end();
    const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));

    const lines = stdout.split('\n').filter((l) => l.length > 0);
    expect(lines.length).toBe(2);
    for (const line of lines) expect(JSON.parse(line)).toMatchObject({ jsonrpc: '2.0' });
    const answer = JSON.parse(lines[1]!) as { id: number; result: CallToolResult };
    expect(answer.id).toBe(2);
    expect(answer.result.isError).toBe(true);
    expect(errorCodeOf(answer.result)).toBe('BROKER_UNAVAILABLE');
    // The logs went to stderr (debug level on: the tool error was logged there).
    expect(stderr).toContain('"event":"tool.error"');
    expect(code).toBe(0);
  });

  it('answers BROKER_UNAVAILABLE once the broker stopped', async () => {
    await broker.stop();
    const result = await call('terminal_list_sessions');
    expect(result.isError).toBe(true);
    expect(errorCodeOf(result)).toBe('BROKER_UNAVAILABLE');
    expect(textOf(result)).toMatch(/^BROKER_UNAVAILABLE: /);
  });
});
