// Guards terminal_run end to end (SDK client → HTTP gateway → broker process → a real bash on a private tmux server, through its shell integration; dash is refused by name): exit statuses 0/1/2/127, 130 after Ctrl-C (also inside a loop) without running the rest of the line, NO_STATUS when the status line never ran, output between the typed line and the status line only (redacted), a command that prints marker-looking text does not end the wait, RUNNING with a resume token that later collects the result, progress notifications, a pane whose program changes mid-run, hostile command text run exactly as typed (a newline refused), the guarded-command check on the bash parse (spellings that build a name refused, terminal_send_text with Enter too, a guarded name as an argument runs), and refusals (not a shell, guarded command, a guarded program below the shell that only the process tree under the pane's lock shows, not allowed, input off) audited.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { RunResult } from '@terminal-mcp/contract';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { createBrokerClient } from '@terminal-mcp/broker-client';
import { createGatewayLogger, createGatewayMcpServer, createToolMetrics, ERROR_META_KEY, parseRows, startGatewayHttp, type RunningGatewayHttp } from '@terminal-mcp/gateway';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBrokerProcess, type BrokerProcess } from './helpers/broker-process.js';
import { startTmuxServer, type TmuxTestServer } from './helpers/tmux-server.js';
import { waitFor } from './helpers/wait-for.js';

const CONFIG = {
  permissions: { terminal_read: true, terminal_input: true },
  allowed_session_patterns: ['agent-*', 'other-*'],
  input_policy: { allowed_session_patterns: ['agent-*'] },
  log_level: 'warn',
};
const TOKEN = 'run-e2e-token';

let root: string;
const clients: Client[] = [];

async function connect(url: string): Promise<Client> {
  const client = new Client({ name: 'run-e2e', version: '0.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }));
  clients.push(client);
  return client;
}

const call = (client: Client, name: string, args: Record<string, unknown>) => client.callTool({ name, arguments: args }, undefined, { timeout: 120_000 }) as Promise<CallToolResult>;
const run = async (client: Client, args: Record<string, unknown>): Promise<RunResult> => {
  const r = await call(client, 'terminal_run', args);
  if (r.isError) throw new Error(`terminal_run failed: ${JSON.stringify(r.content)}`);
  return r.structuredContent as RunResult;
};
const errorCodeOf = (r: CallToolResult) => (r._meta?.[ERROR_META_KEY] as { error_code?: string } | undefined)?.error_code;
const textOf = (r: CallToolResult) => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
/** terminal_list_input_audit's rows, read back from its text table. */
const auditRows = (r: CallToolResult) => parseRows(textOf(r), 'id') as unknown as { tool: string; decision: string; error_code: string | null }[];

/** A plain interactive shell with a fixed prompt, nothing from the host's rc files. */
const BASH = "env PS1='$ ' HISTFILE=/dev/null bash --norc --noprofile -i";

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'tmcp-run-e2e-'));
});

afterAll(async () => {
  await Promise.allSettled(clients.map((c) => c.close()));
  rmSync(root, { recursive: true, force: true });
});

describe('terminal_run over MCP with a live broker', () => {
  let tmux: TmuxTestServer;
  let broker: BrokerProcess;
  let gw: RunningGatewayHttp;
  let client: Client;

  /** Whether a process named `name` runs anywhere under the session's pane (dash runs the
   * command in a subshell, which then leads the terminal's foreground group). */
  const runsUnder = async (session: string, name: string) => {
    const panePid = Number((await tmux.tmux(['display-message', '-p', '-t', `=${session}:`, '#{pane_pid}'])).trim());
    const rows = execFileSync('ps', ['-e', '-o', 'pid=,ppid=,comm='], { encoding: 'utf8' })
      .trim()
      .split('\n')
      .map((l) => l.trim().split(/\s+/))
      .map(([pid, ppid, comm]) => ({ pid: Number(pid), ppid: Number(ppid), comm }));
    const under = new Set([panePid]);
    for (let grew = true; grew; ) {
      grew = false;
      for (const r of rows) {
        if (!under.has(r.pid) && under.has(r.ppid)) {
          under.add(r.pid);
          grew = true;
        }
      }
    }
    return rows.some((r) => under.has(r.pid) && r.comm === name);
  };
  const foreground = async (session: string) => (await tmux.tmux(['display-message', '-p', '-t', `=${session}:`, '#{pane_current_command}'])).trim();
  const shellPane = async (name: string, shell = BASH) => {
    await tmux.newSession(name, shell, { width: 120, height: 30 });
    await waitFor(`${name} prompt`, async () => (await tmux.tmux(['capture-pane', '-p', '-t', `=${name}:`])).includes('$'), 20_000, 50);
  };

  beforeAll(async () => {
    tmux = await startTmuxServer();
    broker = await startBrokerProcess({ tmuxSocket: tmux.socketName, config: CONFIG });
    gw = await startGatewayHttp({ port: 0, env: broker.env, log: createGatewayLogger('silent'), token: TOKEN });
    client = await connect(gw.mcpUrl);
    await shellPane('agent-bash');
  }, 60_000);
  afterAll(async () => {
    await gw?.close();
    await broker?.stop();
    await tmux?.kill();
  });

  it('is listed in the input toolset as a typing tool', async () => {
    const { tools } = await client.listTools();
    const tool = tools.find((t) => t.name === 'terminal_run');
    expect(tool?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false });
  });

  it.each(['agent-bash'])('reports exit statuses 0, 1 and 127 with the output between the typed line and the status line (%s)', async (session) => {
    const ok = await run(client, { session, command: 'seq 1 5' });
    expect(ok).toMatchObject({ state: 'DONE', exit_status: 0, output: '1\n2\n3\n4\n5', output_lines: 5, truncated: false, resume_token: null });
    expect(ok.cursor.line).toBeGreaterThan(0);
    expect(await run(client, { session, command: 'false' })).toMatchObject({ state: 'DONE', exit_status: 1, output: '' });
    const missing = await run(client, { session, command: 'no-such-command-tmcp' });
    expect(missing).toMatchObject({ state: 'DONE', exit_status: 127 });
    expect(missing.output).toMatch(/no-such-command-tmcp: (command )?not found/);
    // A syntax error is the command's own status, not a hung wrapper (`fi` alone: bash
    // refuses it, the grammar reads it as a command; text the grammar cannot read is
    // refused before it is typed, below).
    expect(await run(client, { session, command: 'fi' })).toMatchObject({ state: 'DONE', exit_status: 2 });
  }, 60_000);

  it('runs in the shell itself: cd and variables persist', async () => {
    await run(client, { session: 'agent-bash', command: 'cd / && TMCP_X=kept' });
    expect(await run(client, { session: 'agent-bash', command: 'pwd; echo "$TMCP_X"' })).toMatchObject({ exit_status: 0, output: '/\nkept' });
  }, 60_000);

  it.each([
    ['agent-bash', 'sleep 60; echo not-reached'],
    ['agent-bash', 'for i in 1 2 3; do sleep 60; done; echo not-reached'],
  ])('reports 130 after Ctrl-C, and the rest of the line does not run (%s: %s)', async (session, command) => {
    const pending = run(client, { session, command, timeout_s: 20 });
    await waitFor('sleep running', () => runsUnder(session, 'sleep'), 20_000, 50);
    // Meanwhile the shell is not at its prompt: a second run is refused, nothing typed.
    const busy = await call(client, 'terminal_run', { session, command: 'echo queued' });
    expect(errorCodeOf(busy)).toBe('FOREGROUND_NOT_ALLOWED');
    const keys = await call(client, 'terminal_send_keys', { session, keys: ['C-c'], confirm_sensitive: true });
    expect(keys.isError).toBeFalsy();
    const result = await pending;
    expect(result).toMatchObject({ state: 'DONE', exit_status: 130 });
    expect(result.output).not.toContain('not-reached');
  }, 60_000);

  it('answers NO_STATUS when the shell is back at its prompt and its prompt hook never ran', async () => {
    // The command replaces the PROMPT_COMMAND that carries the shell integration's hook.
    const result = await run(client, { session: 'agent-bash', command: 'echo before; PROMPT_COMMAND=', timeout_s: 20 });
    expect(result).toMatchObject({ state: 'NO_STATUS', exit_status: null, output: 'before' });
    // The shell is usable afterwards: the hook is installed again for the next run.
    expect(await run(client, { session: 'agent-bash', command: 'echo again' })).toMatchObject({ state: 'DONE', exit_status: 0, output: 'again' });
  }, 60_000);

  it('is not ended by output that prints marker-looking text', async () => {
    const fake = 'f'.repeat(32);
    const command = `echo "@tmcp_run_${fake} 0 0 0"; echo "tmcp-run-${fake}"; sleep 2; echo real-end; (exit 7)`;
    const result = await run(client, { session: 'agent-bash', command });
    expect(result).toMatchObject({ state: 'DONE', exit_status: 7 });
    expect(result.output.split('\n')).toEqual([`@tmcp_run_${fake} 0 0 0`, `tmcp-run-${fake}`, 'real-end']);
  }, 60_000);

  it('answers RUNNING past its limit with a resume token, which later collects the result', async () => {
    const first = await run(client, { session: 'agent-bash', command: 'echo started; sleep 8; echo finished', timeout_s: 1 });
    expect(first).toMatchObject({ state: 'RUNNING', exit_status: null });
    expect(first.resume_token).toMatch(/^rw_/);
    let result = await run(client, { resume_token: first.resume_token, timeout_s: 20 });
    while (result.state === 'RUNNING') result = await run(client, { resume_token: result.resume_token, timeout_s: 20 });
    expect(result).toMatchObject({ state: 'DONE', exit_status: 0, output: 'started\nfinished', resume_token: null });
    // A collected token is gone.
    const again = await call(client, 'terminal_run', { resume_token: first.resume_token });
    expect(errorCodeOf(again)).toBe('RESUME_TOKEN_INVALID');
  }, 90_000);

  it('sends progress notifications while it waits, to a client on a streaming transport that asks for them', async () => {
    // The HTTP edge answers in JSON mode (no stream for notifications); stdio and other
    // streaming transports carry them. This is the gateway's MCP server on such a transport.
    const server = createGatewayMcpServer({ broker: createBrokerClient({ role: 'gateway', socketPath: join(broker.socketDir, 'gateway.sock') }), metrics: createToolMetrics() });
    const local = new Client({ name: 'run-progress', version: '0.0.0' });
    const [a, b] = InMemoryTransport.createLinkedPair();
    await Promise.all([server.connect(a), local.connect(b)]);
    try {
      const seen: number[] = [];
      const r = await local.callTool({ name: 'terminal_run', arguments: { session: 'agent-bash', command: 'sleep 7; echo slept' } }, CallToolResultSchema, {
        timeout: 120_000,
        onprogress: (p) => seen.push(p.progress),
      });
      expect(r.structuredContent).toMatchObject({ state: 'DONE', exit_status: 0, output: 'slept' });
      expect(seen.length).toBeGreaterThan(0);
    } finally {
      await local.close();
      await server.close();
    }
  }, 60_000);

  it('redacts secrets in the output', async () => {
    const secret = 'aB3dE5fG7hJ9kL1mN2pQ4rS6tU8vW0xY3zA5';
    const result = await run(client, { session: 'agent-bash', command: `printf 'token ghp_%s\\n' ${secret}` });
    expect(result.output).toBe('token [REDACTED:github_token]');
    expect(result.redactions).toBeGreaterThan(0);
  }, 60_000);

  it('runs hostile command text exactly as bash -c runs it, and refuses a newline', async () => {
    const command = `echo "a;b" 'c'\\''d' $(echo sub) \`echo tick\` '#{pane_id}' "$((6*7))"; printf '%s\\n' '--' "it's" '\\\\'`;
    const expected = execFileSync('bash', ['--norc', '--noprofile', '-c', command], { encoding: 'utf8' }).trimEnd();
    expect(expected.split('\n')[0]).toBe("a;b c'd sub tick #{pane_id} 42");
    const result = await run(client, { session: 'agent-bash', command });
    expect(result).toMatchObject({ state: 'DONE', exit_status: 0, output: expected });

    const refused = await call(client, 'terminal_run', { session: 'agent-bash', command: 'echo one\necho two' });
    expect(errorCodeOf(refused)).toBe('TEXT_REJECTED');
    expect(textOf(refused)).toMatch(/one command line/);
  }, 60_000);

  it('reports LOST when the pane\'s program is replaced mid-run, and refuses a non-shell foreground with a hint to use terminal_send_task', async () => {
    await shellPane('agent-swap');
    const pending = run(client, { session: 'agent-swap', command: 'sleep 60', timeout_s: 20 });
    await waitFor('sleep in the foreground', async () => (await foreground('agent-swap')) === 'sleep', 20_000, 50);
    await tmux.tmux(['respawn-pane', '-k', '-t', '=agent-swap:', 'exec python3 -q']);
    expect(await pending).toMatchObject({ state: 'LOST', exit_status: null });

    await waitFor('python in the foreground', async () => (await foreground('agent-swap')).startsWith('python'), 20_000, 50);
    const refused = await call(client, 'terminal_run', { session: 'agent-swap', command: 'print(1)' });
    expect(errorCodeOf(refused)).toBe('FOREGROUND_NOT_ALLOWED');
    expect(textOf(refused)).toMatch(/terminal_send_task/);

    // A run that starts an interactive program is RUNNING while the program holds the pane.
    const started = await run(client, { session: 'agent-bash', command: 'python3 -q', timeout_s: 1 });
    expect(started.state).toBe('RUNNING');
    await waitFor('python in the foreground', async () => (await foreground('agent-bash')).startsWith('python'), 20_000, 50);
    await call(client, 'terminal_send_task', { session: 'agent-bash', text: 'exit(3)' });
    let result = await run(client, { resume_token: started.resume_token, timeout_s: 20 });
    while (result.state === 'RUNNING') result = await run(client, { resume_token: result.resume_token, timeout_s: 20 });
    expect(result).toMatchObject({ state: 'DONE', exit_status: 3 });
  }, 90_000);

  it('refuses a guarded command and a session input does not allow, and audits each refusal', async () => {
    const guarded = await call(client, 'terminal_run', { session: 'agent-bash', command: 'echo x | ssh localhost true' });
    expect(errorCodeOf(guarded)).toBe('COMMAND_GUARDED');
    await shellPane('other-shell');
    const notAllowed = await call(client, 'terminal_run', { session: 'other-shell', command: 'true' });
    expect(errorCodeOf(notAllowed)).toBe('INPUT_NOT_ALLOWED');
    const audit = await call(client, 'terminal_list_input_audit', {});
    const rows = auditRows(audit).filter((e) => e.tool === 'terminal_run');
    expect(rows.slice(0, 2).map((e) => [e.decision, e.error_code])).toEqual([
      ['BLOCKED', 'INPUT_NOT_ALLOWED'],
      ['BLOCKED', 'COMMAND_GUARDED'],
    ]);
    expect(rows.some((e) => e.decision === 'SENT')).toBe(true);
  }, 60_000);

  it('judges the command from the bash parse: a name the shell builds is refused with nothing typed, text sent with Enter at the prompt too, and a guarded name as an argument runs (issue 45)', async () => {
    await shellPane('agent-spell');
    const screen = () => tmux.tmux(['capture-pane', '-p', '-t', '=agent-spell:']);
    // Each ran ssh past the word check of bc51955 (the name is made when the line runs).
    for (const command of ['a=ss; ${a}h -o BatchMode=yes localhost true', '$(printf ss)h -o BatchMode=yes localhost true', 'x=1 =ssh localhost true']) {
      const refused = await call(client, 'terminal_run', { session: 'agent-spell', command });
      expect([command, errorCodeOf(refused)]).toEqual([command, 'COMMAND_GUARDED']);
    }
    const unreadable = await call(client, 'terminal_run', { session: 'agent-spell', command: 'if then' });
    expect(errorCodeOf(unreadable)).toBe('COMMAND_GUARDED');
    expect(textOf(unreadable)).toContain('not shell syntax the parser can read');
    const typed = await call(client, 'terminal_send_text', { session: 'agent-spell', text: 'env ssh -o BatchMode=yes localhost true', enter: true });
    expect(errorCodeOf(typed)).toBe('COMMAND_GUARDED');
    expect(textOf(typed)).toContain('"ssh"');
    expect(await screen()).not.toMatch(/ssh|printf/);
    // The word check refused any word naming a guarded program; the parse sees an argument.
    const ran = await run(client, { session: 'agent-spell', command: 'echo ssh and tmux are words here' });
    expect(ran).toMatchObject({ state: 'DONE', exit_status: 0 });
    const sent = await call(client, 'terminal_send_text', { session: 'agent-spell', text: 'echo sent-with-enter', enter: true });
    expect(sent.isError).toBeFalsy();
    const rows = auditRows(await call(client, 'terminal_list_input_audit', {})).filter((e) => e.error_code === 'COMMAND_GUARDED');
    expect(rows.length).toBeGreaterThanOrEqual(5);
  }, 60_000);

  it('refuses, under the lock, a run while a guarded program runs below the shell (only the process tree shows it), and audits it', async () => {
    await shellPane('agent-guard');
    // A background job whose argv[0] is a guarded name: tmux still names bash as the
    // foreground, so only the one /proc scan under the pane's lock sees it.
    await tmux.tmux(['send-keys', '-t', '=agent-guard:', '-l', '(exec -a ssh sleep 300) &']);
    await tmux.tmux(['send-keys', '-t', '=agent-guard:', 'Enter']);
    await waitFor('the job below the shell', () => runsUnder('agent-guard', 'sleep'), 20_000, 50);
    expect(await foreground('agent-guard')).toBe('bash');
    const refused = await call(client, 'terminal_run', { session: 'agent-guard', command: 'echo typed' });
    expect(errorCodeOf(refused)).toBe('COMMAND_GUARDED');
    const rows = auditRows(await call(client, 'terminal_list_input_audit', {})).filter((e) => e.tool === 'terminal_run');
    expect([rows[0]?.decision, rows[0]?.error_code]).toEqual(['BLOCKED', 'COMMAND_GUARDED']);
    expect((await tmux.tmux(['capture-pane', '-p', '-t', '=agent-guard:'])).includes('typed')).toBe(false);
    await tmux.tmux(['send-keys', '-t', '=agent-guard:', '-l', 'kill %1']);
    await tmux.tmux(['send-keys', '-t', '=agent-guard:', 'Enter']);
    await waitFor('the job gone', async () => !(await runsUnder('agent-guard', 'sleep')), 20_000, 50);
    expect(await run(client, { session: 'agent-guard', command: 'echo typed' })).toMatchObject({ state: 'DONE', exit_status: 0, output: 'typed' });
  }, 60_000);
});

describe('terminal_run with input off', () => {
  let tmux: TmuxTestServer;
  let broker: BrokerProcess;
  let gw: RunningGatewayHttp;

  beforeAll(async () => {
    tmux = await startTmuxServer();
    broker = await startBrokerProcess({ tmuxSocket: tmux.socketName, config: { ...CONFIG, permissions: { terminal_read: true, terminal_input: false } } });
    gw = await startGatewayHttp({ port: 0, env: broker.env, log: createGatewayLogger('silent'), token: TOKEN });
  }, 60_000);
  afterAll(async () => {
    await gw?.close();
    await broker?.stop();
    await tmux?.kill();
  });

  it('is refused INPUT_DISABLED, types nothing, and is audited', async () => {
    const marker = join(root, 'ran-while-off');
    await tmux.newSession('agent-off', BASH, { width: 120, height: 30 });
    const client = await connect(gw.mcpUrl);
    const refused = await call(client, 'terminal_run', { session: 'agent-off', command: `touch ${marker}` });
    expect(errorCodeOf(refused)).toBe('INPUT_DISABLED');
    expect((await tmux.tmux(['capture-pane', '-p', '-t', '=agent-off:'])).includes('touch')).toBe(false);
    const audit = await call(client, 'terminal_list_input_audit', {});
    const rows = auditRows(audit);
    expect(rows.map((e) => [e.tool, e.decision, e.error_code])).toEqual([['terminal_run', 'BLOCKED', 'INPUT_DISABLED']]);
  }, 60_000);
});
