// Guards issue 43's "input that never glues" with real bash on a private tmux server, a broker process, a real gateway and MCP clients: text left on an integrated shell's input line (a person's typing, a paste whose Enter never came because the broker was killed) is never submitted together with an acknowledged terminal_send_text or terminal_send_task (INPUT_LINE_NOT_EMPTY, leftover redacted, clear_line clears it), a client's own partial typing across sends still submits, and an idempotency key on terminal_send_text and terminal_run never types twice (a replay answers the first outcome; after a broker killed mid-send, DELIVERY_UNKNOWN).
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { RunResult, TaskReceipt } from '@terminal-mcp/contract';
import { createGatewayLogger, ERROR_META_KEY, startGatewayHttp, type RunningGatewayHttp } from '@terminal-mcp/gateway';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { textOf } from './helpers/answer-text.js';
import { startBrokerProcess, type BrokerProcess } from './helpers/broker-process.js';
import { startTmuxServer, type TmuxTestServer } from './helpers/tmux-server.js';
import { waitFor } from './helpers/wait-for.js';

const TOKEN = 'never-glues-token';
const CONFIG = {
  permissions: { terminal_read: true, terminal_input: true },
  allowed_session_patterns: ['agent-*'],
  input_policy: { allowed_session_patterns: ['agent-*'] },
  log_level: 'warn',
};
const BASH = "env PS1='$ ' HISTFILE=/dev/null bash --norc --noprofile -i";

const errorCodeOf = (r: CallToolResult) => (r._meta?.[ERROR_META_KEY] as { error_code?: string } | undefined)?.error_code;

describe('input that never glues (issue 43)', () => {
  let tmux: TmuxTestServer;
  let broker: BrokerProcess;
  let gw: RunningGatewayHttp;
  let alice: Client;

  const connect = async (name: string) => {
    const c = new Client({ name, version: '0' });
    await c.connect(new StreamableHTTPClientTransport(new URL(gw.mcpUrl), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }));
    return c;
  };
  const call = (client: Client, name: string, args: Record<string, unknown>, timeout = 120_000) =>
    client.callTool({ name, arguments: args }, undefined, { timeout }) as Promise<CallToolResult>;
  const ok = async <T>(client: Client, name: string, args: Record<string, unknown>): Promise<T> => {
    const r = await call(client, name, args);
    if (r.isError) throw new Error(`${name} failed: ${textOf(r)}`);
    return r.structuredContent as T;
  };
  /** The pane's whole history and screen, wrapped lines joined, trailing blank rows cut. */
  const paneText = async (session: string) => {
    const all = await tmux.tmux(['capture-pane', '-p', '-J', '-S', '-', '-t', `=${session}:`]);
    return all.replace(/\n+$/, '').split('\n').map((l) => l.trimEnd());
  };
  const shellPane = async (name: string) => {
    await tmux.newSession(name, BASH, { width: 160, height: 40 });
    await waitFor(`${name} prompt`, async () => (await tmux.tmux(['capture-pane', '-p', '-t', `=${name}:`])).includes('$'), 20_000, 50);
    // A first run installs the shell integration (what a client's terminal_run does).
    expect(await ok<RunResult>(alice, 'terminal_run', { session: name, command: 'true' })).toMatchObject({ state: 'DONE', exit_status: 0 });
  };
  /** terminal_send_text publishes no output schema: its answer is read from the text. */
  const sendText = async (args: Record<string, unknown>) => {
    const r = await call(alice, 'terminal_send_text', args);
    if (r.isError) throw new Error(`terminal_send_text failed: ${textOf(r)}`);
    return { text: textOf(r), auditId: Number(/Audit id (\d+)/.exec(textOf(r))?.[1]) };
  };
  const lastLine = async (session: string) => (await paneText(session)).at(-1) ?? '';
  const leaveOnLine = async (session: string, text: string) => {
    await tmux.tmux(['send-keys', '-t', `=${session}:`, '-l', text]);
    await waitFor('text on the line', async () => (await lastLine(session)).endsWith(text), 20_000, 50);
  };

  beforeAll(async () => {
    tmux = await startTmuxServer();
    broker = await startBrokerProcess({ tmuxSocket: tmux.socketName, config: CONFIG });
    gw = await startGatewayHttp({ port: 0, env: broker.env, log: createGatewayLogger('silent'), token: TOKEN });
    alice = await connect('alice');
  }, 60_000);
  afterAll(async () => {
    await alice?.close();
    await gw?.close();
    await broker?.stop();
    await tmux?.kill();
  });

  it('an acknowledged send with enter is refused when text it did not type sits on the line (a person, an interrupted paste), and types nothing', async () => {
    await shellPane('agent-glue');
    await leaveOnLine('agent-glue', 'echo n1-text end');
    const r = await call(alice, 'terminal_send_text', { session: 'agent-glue', text: 'echo n33-text end', enter: true });
    // On the old code this answered SENT and the shell ran `echo n1-text endecho n33-text end`.
    expect({ error: r.isError === true, code: errorCodeOf(r) }).toEqual({ error: true, code: 'INPUT_LINE_NOT_EMPTY' });
    expect(textOf(r)).toContain('echo n1-text end');
    const shown = await paneText('agent-glue');
    expect(shown).not.toContain('n1-text endecho n33-text end');
    expect(shown.at(-1)).toBe('$ echo n1-text end');
    // terminal_send_task is held to the same rule: a BLOCKED receipt naming the code.
    const task = await ok<TaskReceipt>(alice, 'terminal_send_task', { session: 'agent-glue', text: 'echo task-text' });
    expect(task).toMatchObject({ receipt: 'BLOCKED', error_code: 'INPUT_LINE_NOT_EMPTY', text_landed: false, enter_pressed: false });
    expect(await lastLine('agent-glue')).toBe('$ echo n1-text end');
    // clear_line clears the leftover with the line editor, then submits only the text.
    const cleared = await sendText({ session: 'agent-glue', text: 'echo cleared-then-sent', enter: true, clear_line: true });
    expect(cleared.text).toMatch(/^Typed 22 character\(s\) .*then pressed Enter/);
    await waitFor('the cleared send ran', async () => (await paneText('agent-glue')).includes('cleared-then-sent'), 20_000, 50);
    expect((await paneText('agent-glue')).slice(-3)).toEqual(['$ echo cleared-then-sent', 'cleared-then-sent', '$']);
  }, 120_000);

  it("a caller's own partial typing across sends still submits; a submit onto a line someone else added to is refused", async () => {
    await shellPane('agent-partial');
    await sendText({ session: 'agent-partial', text: 'echo part' });
    await sendText({ session: 'agent-partial', text: '-one' });
    await sendText({ session: 'agent-partial', text: '-two', enter: true });
    await waitFor('the joined line ran', async () => (await paneText('agent-partial')).includes('part-one-two'), 20_000, 50);
    expect((await paneText('agent-partial')).slice(-3)).toEqual(['$ echo part-one-two', 'part-one-two', '$']);
    // The same with terminal_send_task as the submit.
    await sendText({ session: 'agent-partial', text: 'echo task-' });
    const task = await ok<TaskReceipt>(alice, 'terminal_send_task', { session: 'agent-partial', text: 'joined' });
    expect(task.receipt).toBe('SUBMIT_CONFIRMED');
    await waitFor('the task ran', async () => (await paneText('agent-partial')).includes('task-joined'), 20_000, 50);
    // A person types onto the caller's partial line: the line is no longer only the
    // caller's, so its submit is refused and the line is left as it is.
    await sendText({ session: 'agent-partial', text: 'echo mine' });
    await leaveOnLine('agent-partial', ';echo theirs');
    const refused = await call(alice, 'terminal_send_text', { session: 'agent-partial', text: '-end', enter: true });
    expect(errorCodeOf(refused)).toBe('INPUT_LINE_NOT_EMPTY');
    expect(await lastLine('agent-partial')).toBe('$ echo mine;echo theirs');
  }, 120_000);

  it('a paste left without its Enter by a broker killed with SIGKILL is not submitted with the next acknowledged send after the restart', async () => {
    await shellPane('agent-killed');
    // The paste is acknowledged without Enter, then the broker is killed before the Enter.
    await sendText({ session: 'agent-killed', text: 'echo n1-text end' });
    broker.kill('SIGKILL');
    expect(await broker.exited()).toMatchObject({ signal: 'SIGKILL' });
    broker = await broker.restart();
    // The new broker adopts the shell's integration (its FIFO pair was kept) and reads the
    // line: what the dead broker typed is nobody's now.
    let r: CallToolResult | undefined;
    await waitFor('the gateway reaches the new broker', async () => {
      r = await call(alice, 'terminal_send_text', { session: 'agent-killed', text: 'echo n33-text end', enter: true });
      return errorCodeOf(r) !== 'BROKER_UNAVAILABLE';
    }, 30_000, 200);
    expect({ error: r?.isError === true, code: errorCodeOf(r!) }).toEqual({ error: true, code: 'INPUT_LINE_NOT_EMPTY' });
    const shown = await paneText('agent-killed');
    expect(shown).not.toContain('n1-text endecho n33-text end');
    expect(shown.at(-1)).toBe('$ echo n1-text end');
    // terminal_run after the restart reads the line the same way (no second install line).
    const run = await call(alice, 'terminal_run', { session: 'agent-killed', command: 'echo via-run' });
    expect(errorCodeOf(run)).toBe('INPUT_LINE_NOT_EMPTY');
    expect((await paneText('agent-killed')).join('\n')).not.toMatch(/show-buffer/);
  }, 120_000);

  it('terminal_send_text and terminal_run with an idempotency key type once; the retry answers the first outcome', async () => {
    await shellPane('agent-idem');
    const first = await sendText({ session: 'agent-idem', text: 'echo idem-text', enter: true, idempotency_key: 'text-1' });
    expect(first.text).toMatch(/^Typed 14 character\(s\)/);
    const again = await sendText({ session: 'agent-idem', text: 'echo idem-text', enter: true, idempotency_key: 'text-1' });
    expect(again.text).toMatch(/^Replayed the earlier answer for this idempotency_key \(nothing typed now\)/);
    expect(again.auditId).toBe(first.auditId);
    const other = await call(alice, 'terminal_send_text', { session: 'agent-idem', text: 'echo other', enter: true, idempotency_key: 'text-1' });
    expect(errorCodeOf(other)).toBe('INVALID_ARGUMENT');
    await waitFor('the text ran', async () => (await paneText('agent-idem')).includes('idem-text'), 20_000, 50);

    // A run whose call is cut (the client gives up first): the retry with the key waits for
    // the same run and answers its end; the command ran once.
    const cut = await call(alice, 'terminal_run', { session: 'agent-idem', command: 'sleep 1; echo idem-run', idempotency_key: 'run-1' }, 300).catch((e: unknown) => e);
    expect(cut).toBeInstanceOf(Error);
    const retried = await ok<RunResult>(alice, 'terminal_run', { session: 'agent-idem', command: 'sleep 1; echo idem-run', idempotency_key: 'run-1' });
    expect(retried).toMatchObject({ state: 'DONE', exit_status: 0, output: 'idem-run', replayed: true });
    const replay = await ok<RunResult>(alice, 'terminal_run', { session: 'agent-idem', command: 'sleep 1; echo idem-run', idempotency_key: 'run-1' });
    expect(replay).toMatchObject({ state: 'DONE', audit_id: retried.audit_id, output: 'idem-run', replayed: true });
    const shown = await paneText('agent-idem');
    expect(shown.filter((l) => l === 'idem-text')).toHaveLength(1);
    expect(shown.filter((l) => l === 'idem-run')).toHaveLength(1);
    expect(shown.filter((l) => l.endsWith('echo idem-run'))).toHaveLength(1);
  }, 120_000);
});

describe('an idempotency key across a broker killed between the audit row and the send', () => {
  let tmux: TmuxTestServer;
  let broker: BrokerProcess;
  let gw: RunningGatewayHttp;

  beforeAll(async () => {
    tmux = await startTmuxServer();
    // Test-only fault injection (effects/fault-injection.ts): SIGKILL right after the audit write.
    broker = await startBrokerProcess({ tmuxSocket: tmux.socketName, config: CONFIG, env: { TERMINAL_MCP_TEST_CRASH_AFTER_AUDIT: '1' } });
    gw = await startGatewayHttp({ port: 0, env: broker.env, log: createGatewayLogger('silent'), token: TOKEN });
  }, 60_000);
  afterAll(async () => {
    await gw?.close();
    await broker?.stop();
    await tmux?.kill();
  });

  it('the retries of terminal_send_text and terminal_run answer DELIVERY_UNKNOWN and type nothing', async () => {
    await tmux.newSession('agent-crash', BASH, { width: 120, height: 30 });
    await waitFor('prompt', async () => (await tmux.tmux(['capture-pane', '-p', '-t', '=agent-crash:'])).includes('$'), 20_000, 50);
    const client = new Client({ name: 'crash', version: '0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(gw.mcpUrl), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }));
    const call = (name: string, args: Record<string, unknown>) => client.callTool({ name, arguments: args }, undefined, { timeout: 60_000 }) as Promise<CallToolResult>;
    for (const [tool, args] of [
      ['terminal_send_text', { session: 'agent-crash', text: 'echo crash-text', enter: true, idempotency_key: 'crash-text' }],
      ['terminal_run', { session: 'agent-crash', command: 'echo crash-run', idempotency_key: 'crash-run' }],
    ] as const) {
      const first = await call(tool, args).catch((e: unknown) => e);
      if (!(first instanceof Error)) expect(errorCodeOf(first as CallToolResult), tool).toBe('DELIVERY_UNKNOWN');
      expect(await broker.exited()).toMatchObject({ signal: 'SIGKILL' });
      broker = await broker.restart({ env: { TERMINAL_MCP_TEST_CRASH_AFTER_AUDIT: undefined } });
      const retry = await call(tool, args);
      expect(errorCodeOf(retry), tool).toBe('DELIVERY_UNKNOWN');
      expect(textOf(retry)).toMatch(/nothing was typed again/);
      broker = await broker.restart({ env: { TERMINAL_MCP_TEST_CRASH_AFTER_AUDIT: '1' } });
    }
    const shown = await tmux.tmux(['capture-pane', '-p', '-J', '-S', '-', '-t', '=agent-crash:']);
    expect(shown).not.toMatch(/crash-(text|run)/);
    await client.close();
  }, 180_000);
});
