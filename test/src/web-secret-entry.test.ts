// Guards the hand-off of a password prompt to the person, end to end (real broker, private tmux server, the MCP SDK client on the HTTP gateway, the production dashboard in Chromium): a real credential program's prompt (ssh-keygen) is WAITING_HUMAN and the secret entry opens first on the page naming that program, the answer reaches exactly that prompt and no file, log or page; a prompt an agent staged with a shell's `read -s` is refused NOT_A_CREDENTIAL_PROMPT, the page names the reading program, and the secret never reaches the agent (issue 45).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createGatewayLogger, ERROR_META_KEY, startGatewayHttp, type RunningGatewayHttp } from '@terminal-mcp/gateway';
import Database from 'better-sqlite3';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signInFirstTime, startWebStack, waitFor, WEB_TEST_CONFIG, type WebStack } from './helpers/web-stack.js';

const KEYGEN = 'claude-keygen';
const SHELL = 'claude-shell';
const SECRET = 'Zebra-Orchard-Secret-90817';
const TOKEN = 'secret-entry-static-token-4b2';
const REASON = 'Please type the key passphrase so the deploy can go on';
const STAGED_REASON = 'sudo needs the root password to restart the service';

/** Every regular file below `dir` (FIFOs, the transcripts' pipes, would block a read). */
function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    const stat = statSync(path);
    return stat.isDirectory() ? filesUnder(path) : stat.isFile() ? [path] : [];
  });
}

/** The secret entry and its send button lie inside the first screen (no scrolling). */
async function entryOnFirstScreen(browser: Browser, baseUrl: string, cookies: Parameters<BrowserContext['addCookies']>[0], session: string, viewport: { width: number; height: number }): Promise<void> {
  const context = await browser.newContext({ locale: 'en-US', viewport });
  try {
    await context.addCookies(cookies);
    const page = await context.newPage();
    await page.goto(`${baseUrl}/view?session=${session}`);
    await page.getByTestId('secret-send').waitFor();
    const entry = await page.getByTestId('secret-entry').boundingBox();
    const send = await page.getByTestId('secret-send').boundingBox();
    expect(entry, `secret entry at ${viewport.width}x${viewport.height}`).not.toBeNull();
    expect(entry!.y).toBeGreaterThanOrEqual(0);
    expect(send!.y + send!.height, `send button bottom at ${viewport.width}x${viewport.height}`).toBeLessThanOrEqual(viewport.height);
    expect(await page.evaluate(() => window.scrollY)).toBe(0);
  } finally {
    await context.close();
  }
}

describe('a password prompt handed to the person (dashboard secret entry)', { timeout: 300_000 }, () => {
  let stack: WebStack;
  let dir: string;
  let gw: RunningGatewayHttp;
  let mcp: Client;
  let context: BrowserContext;
  let page: Page;
  let key: string;
  let harvest: string;

  const screen = (s: string) => stack.tmux.tmux(['capture-pane', '-p', '-t', s]);
  const call = (name: string, args: Record<string, unknown>) => mcp.callTool({ name, arguments: args }) as Promise<CallToolResult>;
  const textOf = (r: CallToolResult) => (r.content as { type: string; text?: string }[]).map((c) => c.text ?? '').join('\n');
  const codeOf = (r: CallToolResult) => (r._meta?.[ERROR_META_KEY] as { error_code?: string } | undefined)?.error_code;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tmcp-secret-e2e-'));
    // A real credential program: ssh-keygen asks for the key's passphrase on the terminal
    // (the executable /usr/bin/ssh-keygen, in the default human_input.credential_programs).
    key = join(dir, 'id_test');
    execFileSync('ssh-keygen', ['-t', 'ed25519', '-N', SECRET, '-q', '-C', 'secret-entry', '-f', key]);
    harvest = join(dir, 'harvested');
    stack = await startWebStack({
      config: { ...WEB_TEST_CONFIG, log_level: 'debug', input_policy: { allowed_session_patterns: ['claude-*'], guarded_commands: ['ssh-keygen', 'sudo', 'ssh', 'tmux'] } },
      beforeBroker: async (tmux) => {
        // Interactive shells with job control: what the operator's and the agent's panes run.
        await tmux.newSession(KEYGEN, "env PS1='keygen$ ' bash --norc --noprofile -i", { width: 100, height: 24 });
        await tmux.newSession(SHELL, "env PS1='work$ ' bash --norc --noprofile -i", { width: 100, height: 24 });
      },
    });
    await waitFor('the shells', async () => (await screen(KEYGEN)).includes('keygen$') && (await screen(SHELL)).includes('work$'));
    // The person's own command, typed by the test as the person would: ssh-keygen leads
    // the terminal's foreground group and asks for the passphrase.
    await stack.tmux.tmux(['send-keys', '-t', KEYGEN, '-l', `ssh-keygen -y -f ${key} > ${key}.check && echo KEY-UNLOCKED-$((6*7))`]);
    await stack.tmux.tmux(['send-keys', '-t', KEYGEN, 'Enter']);
    gw = await startGatewayHttp({ port: 0, env: stack.broker.env, log: createGatewayLogger('silent'), token: TOKEN });
    mcp = new Client({ name: 'agent-under-test', version: '0.0.0' });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(gw.mcpUrl), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }));
    context = await stack.browser.newContext({ locale: 'en-US', viewport: { width: 1280, height: 850 } });
    page = await context.newPage();
    await signInFirstTime(page, stack);
    await waitFor('the passphrase prompt', async () => /passphrase/i.test(await screen(KEYGEN)));
  }, 300_000);

  afterAll(async () => {
    await mcp?.close().catch(() => {});
    await gw?.close();
    await stack?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('the agent sees WAITING_HUMAN at a real prompt, may not type, and asks for the person', async () => {
    await waitFor('WAITING_HUMAN', async () => textOf(await call('terminal_status', { session: KEYGEN })).includes('WAITING_HUMAN'));
    const typed = await call('terminal_send_text', { session: KEYGEN, text: 'guess', enter: true });
    expect(typed.isError).toBe(true);
    expect(codeOf(typed)).toBe('COMMAND_GUARDED');
    const asked = await call('terminal_request_human', { session: KEYGEN, reason: REASON });
    expect(asked.isError, textOf(asked)).toBeFalsy();
    // Not read-only (it reaches a person), never destructive.
    const listed = (await mcp.listTools()).tools.find((t) => t.name === 'terminal_request_human');
    expect(listed?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false });
    expect(textOf(asked)).toContain('WAITING_HUMAN');
  });

  it('the page opens with the secret entry first, on a desktop and on a phone, naming the program that reads it', async () => {
    await page.goto(`${stack.baseUrl}/view?session=${KEYGEN}`);
    await waitFor('the status badge', async () => (await page.getByTestId('view-status').getAttribute('data-status')) === 'WAITING_HUMAN');
    const entry = page.getByTestId('secret-entry');
    expect(await entry.getAttribute('open')).not.toBeNull();
    expect(await entry.getByTestId('human-request').innerText()).toContain(REASON);
    const reader = page.getByTestId('secret-reader');
    expect(await reader.getAttribute('data-admitted')).toBe('true');
    expect(await page.getByTestId('secret-reader-program').innerText()).toContain('/usr/bin/ssh-keygen');
    expect(await page.getByTestId('secret-reader').innerText()).toContain('runs as root');
    expect(await page.getByTestId('secret-reader-chain').innerText()).toContain('bash');
    // Signed in moments ago: the sign-in is the proof, no password field.
    expect(await page.getByTestId('secret-password').count()).toBe(0);
    // No quick answer on a password prompt (an Enter would submit an empty passphrase).
    expect(await page.getByTestId('quick-answers').count()).toBe(0);
    const cookies = await context.cookies();
    await entryOnFirstScreen(stack.browser, stack.baseUrl, cookies, KEYGEN, { width: 1280, height: 850 });
    await entryOnFirstScreen(stack.browser, stack.baseUrl, cookies, KEYGEN, { width: 390, height: 844 });
  });

  it('the operator answers the real prompt, and the page refreshes at once', async () => {
    await page.getByTestId('secret-text').fill(SECRET);
    await page.getByTestId('secret-send').click();
    await waitFor('the confirmation', async () => (await page.getByTestId('secret-sent').count()) > 0 || (await page.getByTestId('secret-error').count()) > 0);
    expect(await page.getByTestId('secret-error').count()).toBe(0);
    expect(await page.getByTestId('secret-sent').innerText()).toContain(String(SECRET.length));
    await waitFor('the prompt took the secret', async () => (await screen(KEYGEN)).includes('KEY-UNLOCKED-42'));
    const fields = (text: string) => text.split(' ').slice(0, 2).join(' ');
    expect(fields(readFileSync(`${key}.check`, 'utf8'))).toBe(fields(readFileSync(`${key}.pub`, 'utf8')));
    // The status is read again after the answer: no "waiting for you" left behind.
    await waitFor('the status left WAITING_HUMAN', async () => (await page.getByTestId('view-status').getAttribute('data-status')) !== 'WAITING_HUMAN');
    expect(await page.getByTestId('secret-text').inputValue()).toBe('');
    expect(await page.content()).not.toContain(SECRET);
  });

  it("refuses a prompt an agent staged with the shell's read -s: the page names the shell and the secret never reaches the agent", async () => {
    const staged = await call('terminal_send_text', { session: SHELL, text: `clear; read -rs -p '[sudo] password for root: ' P; echo "$P" > ${harvest}`, enter: true });
    expect(staged.isError, textOf(staged)).toBeFalsy();
    await waitFor('the staged prompt', async () => (await screen(SHELL)).includes('[sudo] password for root:'));
    // The shell's own builtin prompt is not a person's.
    const status = textOf(await call('terminal_status', { session: SHELL }));
    expect(status).not.toContain('WAITING_HUMAN');
    expect(status).toContain('read by the shell itself');
    const asked = await call('terminal_request_human', { session: SHELL, reason: STAGED_REASON });
    expect(asked.isError, textOf(asked)).toBeFalsy();

    await page.goto(`${stack.baseUrl}/view?session=${SHELL}`);
    const entry = page.getByTestId('secret-entry');
    await entry.waitFor();
    expect(await entry.getAttribute('open')).not.toBeNull();
    expect(await entry.getByTestId('human-request').innerText()).toContain(STAGED_REASON);
    // The page names what would read the answer: the shell, not sudo.
    expect(await page.getByTestId('secret-reader').getAttribute('data-admitted')).toBe('false');
    expect(await page.getByTestId('secret-reader-program').innerText()).toMatch(/\/bash \(pid \d+\)/);
    expect(await page.getByTestId('secret-reader-verdict').innerText()).toContain('shell or interpreter');

    // The operator answers anyway: refused, nothing typed.
    await page.getByTestId('secret-text').fill(SECRET);
    await page.getByTestId('secret-send').click();
    await waitFor('an answer to the post', async () => (await page.getByTestId('secret-error').count()) > 0 || (await page.getByTestId('secret-sent').count()) > 0);
    expect(await page.getByTestId('secret-sent').count()).toBe(0);
    expect(await page.getByTestId('secret-error').getAttribute('data-error-code')).toBe('NOT_A_CREDENTIAL_PROMPT');
    expect(existsSync(harvest)).toBe(false);
    // What the agent can read back: the pane (the harvest file was never written).
    expect(textOf(await call('terminal_tail', { session: SHELL, lines: 50 }))).not.toContain(SECRET);
  });

  it('audits both answers with the operator, length and HMAC only, and the secret is in no file, log or buffer', async () => {
    const db = new Database(join(stack.broker.stateDir, 'audit.db'), { readonly: true });
    let rows: Record<string, unknown>[];
    try {
      rows = db.prepare("SELECT actor, session_name, decision, error_code, text_length, text_hmac, preview FROM input_audit WHERE tool = 'dashboard_secret' ORDER BY id").all() as Record<string, unknown>[];
    } finally {
      db.close();
    }
    expect(rows).toEqual([
      expect.objectContaining({ actor: 'web:admin', session_name: KEYGEN, decision: 'SENT', error_code: null, text_length: SECRET.length, preview: null }),
      expect.objectContaining({ actor: 'web:admin', session_name: SHELL, decision: 'BLOCKED', error_code: 'NOT_A_CREDENTIAL_PROMPT', text_length: SECRET.length, preview: null }),
    ]);
    // Every file under the state directory: stores, their WAL files, keys, transcripts.
    const files = filesUnder(stack.broker.stateDir);
    expect(files.some((f) => f.endsWith('audit.db'))).toBe(true);
    const needle = Buffer.from(SECRET);
    for (const file of files) expect(readFileSync(file).includes(needle), file).toBe(false);
    expect(stack.broker.stderr()).not.toContain(SECRET);
    expect(stack.web.output()).not.toContain(SECRET);
    expect(await stack.tmux.tmux(['list-buffers', '-F', '#{buffer_sample}'])).not.toContain(SECRET);
    expect(textOf(await call('terminal_tail', { session: KEYGEN, lines: 50 }))).not.toContain(SECRET);
  });
});
