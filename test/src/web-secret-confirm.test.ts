// Guards the operator's second confirmation of the secret entry (human_input.confirm_program, issue 45), end to end (real broker, private tmux server, the production dashboard in Chromium, a real credential program's prompt: ssh-keygen): the page names the program that reads the answer (path, pid, user) and asks the operator to confirm it; the broker refuses an answer without the confirmation or confirming another process, types nothing, and types the confirmed answer into exactly that prompt.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signInFirstTime, startWebStack, waitFor, WEB_TEST_CONFIG, type WebStack } from './helpers/web-stack.js';

const KEYGEN = 'claude-confirm';
const SECRET = 'Maple-Harbour-Secret-55102';

describe('the secret entry with human_input.confirm_program', { timeout: 300_000 }, () => {
  let stack: WebStack;
  let dir: string;
  let context: BrowserContext;
  let page: Page;

  const screen = () => stack.tmux.tmux(['capture-pane', '-p', '-t', KEYGEN]);

  /** Sends the form as it stands and returns the error code shown, or 'SENT'. */
  async function send(): Promise<string> {
    await page.getByTestId('secret-text').fill(SECRET);
    await page.getByTestId('secret-send').click();
    await waitFor('an answer to the post', async () => (await page.getByTestId('secret-error').count()) > 0 || (await page.getByTestId('secret-sent').count()) > 0);
    if ((await page.getByTestId('secret-sent').count()) > 0) return 'SENT';
    return (await page.getByTestId('secret-error').getAttribute('data-error-code')) ?? '';
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tmcp-secret-confirm-'));
    const key = join(dir, 'id_test');
    execFileSync('ssh-keygen', ['-t', 'ed25519', '-N', SECRET, '-q', '-C', 'secret-confirm', '-f', key]);
    stack = await startWebStack({
      config: {
        ...WEB_TEST_CONFIG,
        input_policy: { allowed_session_patterns: ['claude-*'], guarded_commands: ['ssh-keygen', 'sudo', 'ssh', 'tmux'] },
        human_input: { confirm_program: true },
      },
      beforeBroker: async (tmux) => {
        await tmux.newSession(KEYGEN, "env PS1='keygen$ ' bash --norc --noprofile -i", { width: 100, height: 24 });
      },
    });
    await waitFor('the shell', async () => (await screen()).includes('keygen$'));
    await stack.tmux.tmux(['send-keys', '-t', KEYGEN, '-l', `ssh-keygen -y -f ${key} > ${key}.check && echo KEY-UNLOCKED-$((6*7))`]);
    await stack.tmux.tmux(['send-keys', '-t', KEYGEN, 'Enter']);
    context = await stack.browser.newContext({ locale: 'en-US', viewport: { width: 1280, height: 850 } });
    page = await context.newPage();
    await signInFirstTime(page, stack);
    await waitFor('the passphrase prompt', async () => /passphrase/i.test(await screen()));
    await page.goto(`${stack.baseUrl}/view?session=${KEYGEN}`);
    await page.getByTestId('secret-confirm').waitFor();
  }, 300_000);

  afterAll(async () => {
    await context?.close().catch(() => {});
    await stack?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('names the program, its pid and its user in the confirmation the operator ticks', async () => {
    const text = await page.getByTestId('secret-confirm').innerText();
    expect(text).toMatch(/I confirm that \/usr\/bin\/ssh-keygen \(pid \d+\), running as root, reads this answer/);
    const pid = /pid (\d+)/.exec(text)?.[1];
    expect(await page.getByTestId('secret-confirm-box').getAttribute('value')).toBe(`${pid}:/usr/bin/ssh-keygen`);
  });

  it('the broker refuses an answer without the confirmation, and one confirming another process: nothing typed', async () => {
    // The page's `required` only helps an honest operator: the broker decides.
    await page.getByTestId('secret-confirm-box').evaluate((box: HTMLInputElement) => {
      box.required = false;
      box.checked = false;
    });
    expect(await send()).toBe('NOT_A_CREDENTIAL_PROMPT');
    await page.getByTestId('secret-confirm-box').evaluate((box: HTMLInputElement) => {
      const [pid, exe] = box.value.split(':');
      box.value = `${Number(pid) + 1}:${exe}`;
      box.checked = true;
    });
    expect(await send()).toBe('NOT_A_CREDENTIAL_PROMPT');
    expect(await screen()).toMatch(/passphrase/i);
    expect(await screen()).not.toContain('KEY-UNLOCKED-42');
  });

  it('types the confirmed answer into exactly that prompt, and audits every attempt with the operator', async () => {
    await page.reload();
    await page.getByTestId('secret-confirm-box').check();
    expect(await send()).toBe('SENT');
    await waitFor('the key unlocked', async () => (await screen()).includes('KEY-UNLOCKED-42'));
    const db = new Database(join(stack.broker.stateDir, 'audit.db'), { readonly: true });
    try {
      const rows = db.prepare("SELECT actor, decision, error_code FROM input_audit WHERE tool = 'dashboard_secret' ORDER BY id").all() as { actor: string; decision: string; error_code: string | null }[];
      expect(rows.every((r) => r.actor === 'web:admin')).toBe(true);
      expect(rows.map((r) => [r.decision, r.error_code])).toEqual([
        ['BLOCKED', 'NOT_A_CREDENTIAL_PROMPT'],
        ['BLOCKED', 'NOT_A_CREDENTIAL_PROMPT'],
        ['SENT', null],
      ]);
    } finally {
      db.close();
    }
  });
});
