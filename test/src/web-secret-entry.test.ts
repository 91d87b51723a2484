// Guards the hand-off of a password prompt to the person, end to end (real broker, private tmux server, the MCP SDK client on the HTTP gateway, the production dashboard in Chromium): a guarded `sudo` prompt is WAITING_HUMAN, the agent is refused and asks for a human, the operator sees the request and answers through the secret entry (a wrong own password is refused, nothing typed), the answer reaches exactly that prompt, and the secret is in no file under the state directory, no log and no page.
import { createHash } from 'node:crypto';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createGatewayLogger, ERROR_META_KEY, startGatewayHttp, type RunningGatewayHttp } from '@terminal-mcp/gateway';
import Database from 'better-sqlite3';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signInFirstTime, startWebStack, waitFor, WEB_TEST_CONFIG, type WebStack } from './helpers/web-stack.js';

const SESSION = 'claude-sudo';
const SECRET = 'Zebra-Orchard-Secret-90817';
const SHA = createHash('sha256').update(SECRET).digest('hex');
const TOKEN = 'secret-entry-static-token-4b2';
const REASON = 'Please type the sudo password so the deploy can go on';

/** Every regular file below `dir` (FIFOs, the transcripts' pipes, would block a read). */
function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    const stat = statSync(path);
    return stat.isDirectory() ? filesUnder(path) : stat.isFile() ? [path] : [];
  });
}

describe('a password prompt handed to the person (dashboard secret entry)', { timeout: 240_000 }, () => {
  let stack: WebStack;
  let dir: string;
  let gw: RunningGatewayHttp;
  let mcp: Client;
  let context: BrowserContext;
  let page: Page;

  const screen = () => stack.tmux.tmux(['capture-pane', '-p', '-t', SESSION]);
  const call = (name: string, args: Record<string, unknown>) => mcp.callTool({ name, arguments: args }) as Promise<CallToolResult>;
  const textOf = (r: CallToolResult) => (r.content as { type: string; text?: string }[]).map((c) => c.text ?? '').join('\n');

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tmcp-secret-e2e-'));
    // Named sudo, so its kernel command name is a guarded command; it reads without echo and
    // prints only whether the answer's digest matched.
    const sudo = join(dir, 'sudo');
    writeFileSync(sudo, '#!/bin/bash\nread -r -s -p "[sudo] password for tester: " pw\necho\nif [ "$(printf %s "$pw" | sha256sum | cut -c1-64)" = "$1" ]; then echo DIGEST-MATCH; else echo DIGEST-MISMATCH; fi\nexec sleep 600\n');
    chmodSync(sudo, 0o755);
    stack = await startWebStack({
      config: { ...WEB_TEST_CONFIG, log_level: 'debug' },
      beforeBroker: async (tmux) => {
        await tmux.newSession(SESSION, `${sudo} ${SHA}`, { width: 100, height: 24 });
      },
    });
    gw = await startGatewayHttp({ port: 0, env: stack.broker.env, log: createGatewayLogger('silent'), token: TOKEN });
    mcp = new Client({ name: 'agent-under-test', version: '0.0.0' });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(gw.mcpUrl), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }));
    context = await stack.browser.newContext({ locale: 'en-US', viewport: { width: 1280, height: 900 } });
    page = await context.newPage();
    await signInFirstTime(page, stack);
    await waitFor('the sudo prompt', async () => (await screen()).includes('password for tester'));
  }, 240_000);

  afterAll(async () => {
    await mcp?.close().catch(() => {});
    await gw?.close();
    await stack?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('the agent sees WAITING_HUMAN, may not type, and asks for the person', async () => {
    const status = await call('terminal_status', { session: SESSION });
    expect(textOf(status)).toContain('WAITING_HUMAN');
    const typed = await call('terminal_send_text', { session: SESSION, text: 'guess', enter: true });
    expect(typed.isError).toBe(true);
    expect((typed._meta?.[ERROR_META_KEY] as { error_code?: string } | undefined)?.error_code).toBe('COMMAND_GUARDED');
    const asked = await call('terminal_request_human', { session: SESSION, reason: REASON });
    expect(asked.isError, textOf(asked)).toBeFalsy();
    // Not read-only (it reaches a person), never destructive.
    const listed = (await mcp.listTools()).tools.find((t) => t.name === 'terminal_request_human');
    expect(listed?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false });
    expect(textOf(asked)).toContain('WAITING_HUMAN');
  });

  it('the operator sees the request, is refused with a wrong own password, then answers the prompt', async () => {
    await page.goto(`${stack.baseUrl}/view?session=${SESSION}`);
    await waitFor('the status badge', async () => (await page.getByTestId('view-status').getAttribute('data-status')) === 'WAITING_HUMAN');
    const entry = page.getByTestId('secret-entry');
    expect(await entry.getAttribute('open')).not.toBeNull();
    expect(await entry.getByTestId('human-request').innerText()).toContain(REASON);
    // The ordinary text box does not type into a guarded pane, even for the operator.
    await page.getByTestId('secret-text').fill(SECRET);
    await page.getByTestId('secret-password').fill('not-my-password-123');
    await page.getByTestId('secret-send').click();
    await waitFor('the refusal', async () => (await page.getByTestId('secret-error').count()) > 0);
    expect(await page.getByTestId('secret-error').getAttribute('data-error-code')).toBe('UNAUTHENTICATED');
    expect(await screen()).not.toContain('DIGEST-');
    expect(await page.getByTestId('secret-text').inputValue()).toBe('');
    // Signed in moments ago: a fresh proof, no password needed.
    await page.getByTestId('secret-text').fill(SECRET);
    await page.getByTestId('secret-send').click();
    await waitFor('the confirmation', async () => (await page.getByTestId('secret-sent').count()) > 0);
    expect(await page.getByTestId('secret-sent').innerText()).toContain(String(SECRET.length));
    await waitFor('the prompt took the secret', async () => (await screen()).includes('DIGEST-MATCH'));
    expect(await page.getByTestId('secret-text').inputValue()).toBe('');
    expect(await page.content()).not.toContain(SECRET);
  });

  it('audits the answer with the operator, its length and HMAC only, and the secret is in no file, log or buffer', async () => {
    const db = new Database(join(stack.broker.stateDir, 'audit.db'), { readonly: true });
    let rows: Record<string, unknown>[];
    try {
      rows = db.prepare("SELECT actor, decision, error_code, text_length, text_hmac, preview FROM input_audit WHERE tool = 'dashboard_secret' ORDER BY id").all() as Record<string, unknown>[];
    } finally {
      db.close();
    }
    expect(rows).toEqual([
      expect.objectContaining({ actor: 'web:admin', decision: 'BLOCKED', error_code: 'UNAUTHENTICATED', text_length: SECRET.length, preview: null }),
      expect.objectContaining({ actor: 'web:admin', decision: 'SENT', error_code: null, text_length: SECRET.length, preview: null }),
    ]);
    // Every file under the state directory: stores, their WAL files, keys, transcripts.
    const files = filesUnder(stack.broker.stateDir);
    expect(files.some((f) => f.endsWith('audit.db'))).toBe(true);
    const needle = Buffer.from(SECRET);
    for (const file of files) expect(readFileSync(file).includes(needle), file).toBe(false);
    expect(stack.broker.stderr()).not.toContain(SECRET);
    expect(stack.web.output()).not.toContain(SECRET);
    expect(await stack.tmux.tmux(['list-buffers', '-F', '#{buffer_sample}'])).not.toContain(SECRET);
    // What a reader or live frame of the pane shows.
    expect(textOf(await call('terminal_tail', { session: SESSION, lines: 50 }))).not.toContain(SECRET);
  });
});
