// Guards terminal_run through shell integration (real bash and zsh on a private tmux server, a broker process, an MCP client): the pane shows exactly the commands as typed, their output and prompts (no wrapper, no state-dir path), statuses are exact over 200 back-to-back runs, terminal_read_since over runs holds no wrapper text, a shell not at its prompt (a `while read` loop, a REPL, a pager) is refused and gets nothing typed, and text left on the input line is refused INPUT_LINE_NOT_EMPTY unless clear_line clears it.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { RunResult } from '@terminal-mcp/contract';
import { createGatewayLogger, ERROR_META_KEY, startGatewayHttp, type RunningGatewayHttp } from '@terminal-mcp/gateway';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBrokerProcess, type BrokerProcess } from './helpers/broker-process.js';
import { startTmuxServer, type TmuxTestServer } from './helpers/tmux-server.js';
import { waitFor } from './helpers/wait-for.js';
import { readAnswerOf } from './helpers/answer-text.js';
import { APPS_HOST_OPTIONS } from './helpers/apps-host.js';

const TOKEN = 'shell-integration-token';
const CONFIG = {
  permissions: { terminal_read: true, terminal_input: true },
  allowed_session_patterns: ['agent-*'],
  input_policy: { allowed_session_patterns: ['agent-*'] },
  log_level: 'warn',
};
const BASH = "env PS1='$ ' HISTFILE=/dev/null bash --norc --noprofile -i";
const ZSH = "env PS1='$ ' HISTFILE=/dev/null zsh -f -i";
const DASH = "env PS1='$ ' dash -i";
const HAS_ZSH = existsSync('/usr/bin/zsh') || existsSync('/bin/zsh');
const RUNS = 200;

const errorCodeOf = (r: CallToolResult) => (r._meta?.[ERROR_META_KEY] as { error_code?: string } | undefined)?.error_code;
const textOf = (r: CallToolResult) => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');

describe('terminal_run through shell integration', () => {
  let tmux: TmuxTestServer;
  let broker: BrokerProcess;
  let gw: RunningGatewayHttp;
  let client: Client;

  const call = (args: Record<string, unknown>) => client.callTool({ name: 'terminal_run', arguments: args }, undefined, { timeout: 120_000 }) as Promise<CallToolResult>;
  const run = async (args: Record<string, unknown>): Promise<RunResult> => {
    const r = await call(args);
    if (r.isError) throw new Error(`terminal_run failed: ${textOf(r)}`);
    return r.structuredContent as RunResult;
  };
  /** The pane's whole history and screen, wrapped lines joined, trailing blank rows cut. */
  const paneText = async (session: string) => {
    const all = await tmux.tmux(['capture-pane', '-p', '-J', '-S', '-', '-t', `=${session}:`]);
    return all.replace(/\n+$/, '').split('\n').map((l) => l.trimEnd());
  };
  const shellPane = async (name: string, shell: string) => {
    await tmux.newSession(name, shell, { width: 120, height: 40 });
    await waitFor(`${name} prompt`, async () => (await tmux.tmux(['capture-pane', '-p', '-t', `=${name}:`])).includes('$'), 20_000, 50);
  };

  beforeAll(async () => {
    tmux = await startTmuxServer();
    broker = await startBrokerProcess({ tmuxSocket: tmux.socketName, config: CONFIG });
    gw = await startGatewayHttp({ port: 0, env: broker.env, log: createGatewayLogger('silent'), token: TOKEN });
    // As a host that shows MCP Apps views: only such a client gets terminal_tail's cursor
    // as a field (structuredContent); the test reads it from there.
    client = new Client({ name: 'shell-integration', version: '0' }, APPS_HOST_OPTIONS);
    await client.connect(new StreamableHTTPClientTransport(new URL(gw.mcpUrl), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }));
  }, 60_000);
  afterAll(async () => {
    await client?.close();
    await gw?.close();
    await broker?.stop();
    await tmux?.kill();
  });

  /** `blankRowsAtInstall`: rows the erased install line may leave blank (zsh in this
   * harness draws its prompt one row below the erased line; bash draws it on that row). */
  const backToBack = (session: string, shell: string, blankRowsAtInstall = 0) => async () => {
    await shellPane(session, shell);
    // Rows the shell printed before the first run (zsh draws its first prompt one row down
    // after the pane's first resize): kept as they are.
    const before = await paneText(session);
    let refused = 0;
    let wrong = 0;
    const expected: string[] = [];
    for (let i = 0; i < RUNS; i++) {
      const status = i % 4;
      const command = `echo line-${i}; (exit ${status})`;
      const r = await call({ session, command });
      if (r.isError) {
        refused++;
        continue;
      }
      const s = r.structuredContent as RunResult;
      if (s.state !== 'DONE' || s.exit_status !== status || s.output !== `line-${i}`) wrong++;
      expected.push(`$ ${command}`, `line-${i}`);
    }
    expect({ refused, wrong }).toEqual({ refused: 0, wrong: 0 });
    const shown = await paneText(session);
    // Exactly the commands as typed, their output, and the prompt: nothing else.
    const first = shown.indexOf(expected[0] ?? '');
    expect(shown.slice(0, first).every((l) => l === '')).toBe(true);
    expect(first - (before.length - 1)).toBeLessThanOrEqual(blankRowsAtInstall);
    expect(shown.slice(first)).toEqual([...expected, '$']);
    expect(shown.join('\n')).not.toMatch(/tmcp|show-buffer|\/runs\/|\/shells\//);
  };

  it(`runs ${RUNS} commands back to back into bash: none refused, every status exact, the pane holds only them`, backToBack('agent-bash', BASH), 600_000);

  it.skipIf(!HAS_ZSH)(`runs ${RUNS} commands back to back into zsh the same way`, backToBack('agent-zsh', ZSH, 1), 600_000);

  it('terminal_read_since over runs holds the commands, their output and prompts, and no wrapper text', async () => {
    await shellPane('agent-since', BASH);
    await waitFor('recorded', async () => (await tmux.tmux(['display-message', '-p', '-t', '=agent-since:', '#{pane_pipe}'])) === '1', 20_000, 50);
    const tool = (name: string, args: Record<string, unknown>) => client.callTool({ name, arguments: args }, undefined, { timeout: 120_000 }) as Promise<CallToolResult>;
    const tail = await tool('terminal_tail', { session: 'agent-since', lines: 5 });
    const beforeInstall = (tail.structuredContent as { cursor: string }).cursor;
    // The first run installs the hook (its one line is printed, then erased on screen).
    expect(await run({ session: 'agent-since', command: 'echo first' })).toMatchObject({ state: 'DONE', output: 'first' });
    const cursor = (((await tool('terminal_tail', { session: 'agent-since', lines: 5 })).structuredContent) as { cursor: string }).cursor;
    const expected: string[] = [];
    for (let i = 0; i < 20; i++) {
      expect(await run({ session: 'agent-since', command: `echo since-${i}` })).toMatchObject({ state: 'DONE', exit_status: 0, output: `since-${i}` });
      expected.push(`$ echo since-${i}`, `since-${i}`);
    }
    let text = '';
    await waitFor('the transcript has the last run', async () => {
      const r = await tool('terminal_read_since', { session: 'agent-since', cursor, max_lines: 2000 });
      text = String(readAnswerOf(r).text ?? '');
      return text.includes('since-19\n');
    }, 20_000, 100);
    // The transcript keeps the line editor's redraws as printed (a carriage return and the
    // prompt again: `$ $ echo x` + the echo repeated), so lines are matched by what they
    // hold: each command line carries its command, and the outputs are exact.
    const lines = text.split('\n').map((l) => l.trimEnd()).filter((l) => l !== '' && l !== '$');
    expect(lines.length).toBe(expected.length);
    lines.forEach((l, i) => (i % 2 === 0 ? expect(l).toMatch(new RegExp(`^(\\$ )+(echo since-${i / 2})+$`)) : expect(l).toBe(expected[i])));
    expect(text).not.toMatch(/tmcp|show-buffer|__tmcp|\/runs\/|\/shells\//);
    // From before the install: the one install line is the only other text.
    const all = String(readAnswerOf(await tool('terminal_read_since', { session: 'agent-since', cursor: beforeInstall, max_lines: 2000 })).text ?? '');
    const other = all.split('\n').map((l) => l.trimEnd()).filter((l) => l !== '' && !/^(\$ ?)+((echo (first|since-\d+))+)?$/.test(l) && !/^(first|since-\d+)$/.test(l));
    // At most the one install line (typed, then erased on screen), without any path.
    expect(other.length).toBeLessThanOrEqual(1);
    expect(other.join('\n')).not.toMatch(/\/runs\/|\/shells\/|__tmcp_/);
  }, 120_000);

  it('refuses a shell that is not at its prompt (a while-read loop, a Python REPL, less) and types nothing', async () => {
    await shellPane('agent-busy', BASH);
    expect(await run({ session: 'agent-busy', command: 'echo ready' })).toMatchObject({ state: 'DONE', output: 'ready' });
    // A loop in the shell itself, typed as a person would: bash's `read` builtin reads the terminal.
    await tmux.tmux(['send-keys', '-t', '=agent-busy:', 'while read l; do echo got:$l; done', 'Enter']);
    await waitFor('loop started', async () => (await paneText('agent-busy')).at(-1)?.startsWith('$ while read') === true, 20_000, 50);
    const before = await paneText('agent-busy');
    const r = await call({ session: 'agent-busy', command: 'echo should-not-run' });
    expect(r.isError).toBe(true);
    expect(errorCodeOf(r)).toBe('FOREGROUND_NOT_ALLOWED');
    expect(textOf(r)).toMatch(/not at its prompt/);
    expect(await paneText('agent-busy')).toEqual(before);
    await tmux.tmux(['send-keys', '-t', '=agent-busy:', 'C-c']);
    await waitFor('prompt back', async () => (await paneText('agent-busy')).at(-1) === '$', 20_000, 50);

    for (const [program, ready] of [
      ['python3 -q', '>>>'],
      ['less /etc/passwd', 'root:'],
    ] as const) {
      await tmux.tmux(['send-keys', '-t', '=agent-busy:', program, 'Enter']);
      await waitFor(`${program} up`, async () => (await tmux.tmux(['capture-pane', '-p', '-t', '=agent-busy:'])).includes(ready), 20_000, 50);
      const screen = await tmux.tmux(['capture-pane', '-p', '-t', '=agent-busy:']);
      const refused = await call({ session: 'agent-busy', command: 'echo should-not-run' });
      expect(refused.isError).toBe(true);
      expect(errorCodeOf(refused)).toBe('FOREGROUND_NOT_ALLOWED');
      expect(await tmux.tmux(['capture-pane', '-p', '-t', '=agent-busy:'])).toEqual(screen);
      await tmux.tmux(['send-keys', '-t', '=agent-busy:', ...(program.startsWith('python') ? ['C-d'] : ['q'])]);
      await waitFor('prompt back', async () => (await paneText('agent-busy')).at(-1) === '$', 20_000, 50);
    }
    // Back at its prompt, the same shell takes a run again.
    expect(await run({ session: 'agent-busy', command: 'echo again' })).toMatchObject({ state: 'DONE', exit_status: 0, output: 'again' });
  }, 120_000);

  it('refuses INPUT_LINE_NOT_EMPTY when text is on the input line, showing it redacted, and clear_line clears it first', async () => {
    await shellPane('agent-line', BASH);
    expect(await run({ session: 'agent-line', command: 'true' })).toMatchObject({ state: 'DONE', exit_status: 0 });
    await tmux.tmux(['send-keys', '-t', '=agent-line:', '-l', 'echo left-over AWS_SECRET_ACCESS_KEY=Rk8vT2qLm5Xc9Wb3Nd7Hs1Yp4Jf6Ge0Ua2Ko8Nri']);
    await waitFor('text on the line', async () => (await paneText('agent-line')).at(-1)?.includes('left-over') === true, 20_000, 50);
    const r = await call({ session: 'agent-line', command: 'echo mine' });
    expect(r.isError).toBe(true);
    expect(errorCodeOf(r)).toBe('INPUT_LINE_NOT_EMPTY');
    expect(textOf(r)).toContain('echo left-over');
    expect(textOf(r)).not.toContain('Rk8vT2qLm5Xc9');
    expect((await paneText('agent-line')).at(-1)).toContain('left-over');

    const cleared = await run({ session: 'agent-line', command: 'echo mine', clear_line: true });
    expect(cleared).toMatchObject({ state: 'DONE', exit_status: 0, output: 'mine' });
    const shown = await paneText('agent-line');
    expect(shown.slice(-3)).toEqual(['$ echo mine', 'mine', '$']);
    expect(shown.join('\n')).not.toContain('left-over');
  }, 120_000);

  it('refuses a shell that cannot carry the integration (dash), naming it, and types nothing', async () => {
    await shellPane('agent-dash', DASH);
    const before = await paneText('agent-dash');
    const r = await call({ session: 'agent-dash', command: 'echo no' });
    expect(errorCodeOf(r)).toBe('FOREGROUND_NOT_ALLOWED');
    expect(textOf(r)).toMatch(/dash/);
    expect(await paneText('agent-dash')).toEqual(before);
  }, 60_000);
  it.skipIf(!HAS_ZSH)('zsh without HIST_IGNORE_SPACE: the install line stays out of the history file and off the screen', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tmcp-zsh-hist-'));
    try {
      const histfile = join(dir, 'history');
      await shellPane('agent-zhist', `env PS1='$ ' HISTFILE=${histfile} SAVEHIST=100 HISTSIZE=100 zsh -f -i`);
      await tmux.tmux(['send-keys', '-t', '=agent-zhist:', 'echo before', 'Enter']);
      await waitFor('before ran', async () => (await paneText('agent-zhist')).at(-1) === '$' && (await paneText('agent-zhist')).includes('before'), 20_000, 50);
      const before = await paneText('agent-zhist');
      expect(await run({ session: 'agent-zhist', command: 'echo after-install' })).toMatchObject({ state: 'DONE', exit_status: 0, output: 'after-install' });
      // As a person sees the pane: what the shell showed, then the run, nothing between
      // (the erased install line leaves no row behind once the shell has printed a line;
      // at a first prompt this harness's zsh draws the next prompt one row down: see
      // backToBack's blankRowsAtInstall).
      const shown = await paneText('agent-zhist');
      expect(shown).toEqual([...before.slice(0, -1), '$ echo after-install', 'after-install', '$']);
      // The history as zsh writes it (fc -W: the in-memory list to HISTFILE).
      expect(await run({ session: 'agent-zhist', command: 'fc -W' })).toMatchObject({ state: 'DONE', exit_status: 0 });
      const history = readFileSync(histfile, 'utf8');
      expect(history).toContain('echo after-install');
      expect(history).not.toMatch(/show-buffer|tmcp/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
