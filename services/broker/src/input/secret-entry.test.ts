// Guards the secret entry: only a signed-in operator on web.sock who proved their password within minutes types into a pane whose foreground is guarded (a real credential program's prompt, ssh-keygen), and only into a credential program (a script named sudo is refused NOT_A_CREDENTIAL_PROMPT); agents and the ordinary dashboard text box stay refused; refusals are audited BLOCKED; a sent secret is audited by length and HMAC only and appears in no file under the state directory.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readAppErrorData } from '@terminal-mcp/contract';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTmuxServer, type TmuxTestServer } from '../../../../test/src/helpers/tmux-server.js';
import { configSchema } from '../config/schema.js';
import { createTmuxAdapter, type ControlModeTmuxAdapter } from '../effects/tmux/adapter.js';
import { principalOf } from '../policy/authority.js';
import { createContextInner } from '../rpc/context.js';
import type { BrokerDeps } from '../rpc/deps.js';
import { gatewayRouter } from '../rpc/roles/gateway.js';
import { webRouter } from '../rpc/roles/web.js';
import { createCallerFactory } from '../rpc/trpc.js';
import { testDeps } from '../testing/deps.testkit.js';
import { hashPassword } from '../webauth/passwords.js';
import { createSession, newSession } from '../webauth/sessions.js';
import { answerSecretPrompt } from './secret-entry.js';
import { recoverInterruptedInput } from './services.js';

const CONFIG = configSchema.parse({
  permissions: { terminal_read: true, terminal_input: true },
  allowed_session_patterns: ['agent-*'],
  input_policy: { allowed_session_patterns: ['agent-*'], guarded_commands: ['ssh-keygen', 'sudo', 'ssh', 'tmux'] },
});
/** What ssh-keygen prints once the passphrase unlocked the key (the command line on screen
 * says `$((6*7))`, never 42). */
const UNLOCKED = 'KEY-UNLOCKED-42';
const SECRET = 'hunter2-Plum-Lighthouse-5521';
const SHA = createHash('sha256').update(SECRET).digest('hex');
const OPERATOR_PASSWORD = 'amber-quarry-violin-42';

let tmux: TmuxTestServer;
let adapter: ControlModeTmuxAdapter;
let root: string;
let stateDir: string;
let deps: BrokerDeps;
let sudo: string;
let key: string;
let userId: number;
let splitPane = '';

beforeAll(async () => {
  tmux = await startTmuxServer();
  root = mkdtempSync(join(tmpdir(), 'tmcp-secret-'));
  stateDir = join(root, 'state');
  mkdirSync(join(root, 'bin'));
  // A script named sudo (its kernel command name is `sudo`): asks like sudo without echo,
  // and says only whether the answer's digest matched. Not a credential program: its
  // executable is bash.
  sudo = join(root, 'bin', 'sudo');
  writeFileSync(sudo, '#!/bin/bash\nread -r -s -p "[sudo] password for tester: " pw\necho\nif [ "$(printf %s "$pw" | sha256sum | cut -c1-64)" = "$1" ]; then echo DIGEST-MATCH; else echo DIGEST-MISMATCH; fi\nexec sleep 600\n');
  chmodSync(sudo, 0o755);
  // A real credential program: ssh-keygen asking for the passphrase of a key, typed at an
  // interactive shell (job control: it leads the terminal's foreground group).
  key = join(root, 'id_test');
  execFileSync('ssh-keygen', ['-t', 'ed25519', '-N', SECRET, '-q', '-f', key]);
  const shell = "env PS1='$ ' bash --norc --noprofile -i";
  const unlock = `ssh-keygen -y -f ${key} >/dev/null && echo KEY-UNLOCKED-$((6*7))`;
  // Created before the broker's control client attaches (tmux 3.3a and session churn).
  for (const name of ['agent-sudo-a', 'agent-sudo-b', 'agent-sudo-c']) await tmux.newSession(name, shell);
  await tmux.newSession('agent-fake-sudo', `${sudo} ${SHA}`);
  // The prompt in a split pane that is not the active one (issue 29 item 4: the full view's pane tab).
  const d = await tmux.newSession('agent-sudo-d', 'exec sleep 600');
  splitPane = (await tmux.tmux(['split-window', '-d', '-P', '-F', '#{pane_id}', '-t', d.paneId, shell])).trim();
  for (const target of ['agent-sudo-a', 'agent-sudo-b', 'agent-sudo-c', splitPane]) {
    await vi.waitFor(async () => expect(await tmux.tmux(['capture-pane', '-p', '-t', target])).toContain('$'), { timeout: 30_000, interval: 50 });
    await tmux.tmux(['send-keys', '-t', target, '-l', unlock]);
    await tmux.tmux(['send-keys', '-t', target, 'Enter']);
  }
  adapter = createTmuxAdapter({ socketName: tmux.socketName, configFile: '/dev/null' });
  expect(await adapter.waitUntilConnected(10_000)).toBe(true);
  deps = testDeps({ config: CONFIG, tmux: adapter, stateDir, log: pino({ level: 'silent' }), info: { version: 'test', startedAt: new Date(), tmuxSocket: tmux.socketName } });
  recoverInterruptedInput(deps);
  userId = deps.webauth.store.createUser({ username: 'admin', passwordHash: await hashPassword(OPERATOR_PASSWORD), mustChangePassword: false, now: Date.now() })!.id;
  for (const target of ['agent-sudo-a', 'agent-sudo-b', 'agent-sudo-c', splitPane]) {
    await vi.waitFor(async () => expect(await tmux.tmux(['capture-pane', '-p', '-t', target])).toMatch(/passphrase/i), { timeout: 30_000, interval: 50 });
  }
  await vi.waitFor(async () => expect(await tmux.tmux(['capture-pane', '-p', '-t', 'agent-fake-sudo'])).toContain('password for tester'), { timeout: 30_000, interval: 50 });
}, 60_000);

afterAll(async () => {
  await adapter?.close();
  deps?.stores.close();
  await tmux?.kill();
  if (root) rmSync(root, { recursive: true, force: true });
});

const gw = () => createCallerFactory(gatewayRouter)(createContextInner({ role: 'gateway', deps, actor: 'gateway:secret-test' }));
const web = (token: string) => createCallerFactory(webRouter)(createContextInner({ role: 'web', deps, operatorToken: token }));
const freshToken = () => createSession(deps.webauth, userId).token;
/** Signed in ten minutes ago: valid, but no longer a fresh proof of the password. */
function oldToken(): string {
  const stale = newSession(userId, Date.now() - 10 * 60_000);
  deps.webauth.store.insertSession(stale.session);
  return stale.token;
}
const codeOf = (p: Promise<unknown>) =>
  p.then(
    () => 'OK',
    (err: unknown) => (readAppErrorData((err as { cause?: unknown }).cause) ?? readAppErrorData(err))?.code ?? String(err),
  );
const screen = (name: string) => tmux.tmux(['capture-pane', '-p', '-t', name]);
const lastAttempt = () =>
  deps.stores.db('audit').prepare('SELECT actor, tool, decision, error_code, text_length, text_hmac, preview FROM input_audit ORDER BY id DESC LIMIT 1').get() as Record<string, unknown>;

/** Every regular file below `dir` (FIFOs, the transcripts' pipes, would block a read). */
function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    const stat = statSync(path);
    return stat.isDirectory() ? filesUnder(path) : stat.isFile() ? [path] : [];
  });
}

describe('the secret entry', () => {
  it('reports the prompt as WAITING_HUMAN, and keeps agents and the ordinary text box out of the guarded pane', async () => {
    expect((await gw().sessions.status({ session: 'agent-sudo-a' })).status).toBe('WAITING_HUMAN');
    expect(await codeOf(gw().input.sendText({ session: 'agent-sudo-a', text: SECRET, enter: true }))).toBe('COMMAND_GUARDED');
    expect(await codeOf(web(freshToken()).input.sendText({ session: 'agent-sudo-a', text: SECRET, enter: true }))).toBe('COMMAND_GUARDED');
    // The gateway's router cannot name the secret entry at all.
    expect('answerSecret' in (gw() as unknown as { human: object }).human).toBe(false);
  });

  it('refuses the operator-only exception to any other principal, at the effect, and audits it', async () => {
    // A gateway caller that reached the use case directly (a procedure added by mistake):
    // the one input authorization still refuses, even with a "fresh" re-authentication.
    const agent = { role: 'gateway' as const, actor: 'gateway:secret-test', principal: principalOf('gateway', 'stdio', 'gateway:secret-test'), deps };
    expect(await codeOf(answerSecretPrompt(agent, { session: 'agent-sudo-a', secret: SECRET, reauthenticatedAt: Date.now() }))).toBe('INPUT_NOT_ALLOWED');
    expect(lastAttempt()).toMatchObject({ actor: 'gateway:secret-test', tool: 'dashboard_secret', decision: 'BLOCKED', error_code: 'INPUT_NOT_ALLOWED', preview: null });
    expect(await screen('agent-sudo-a')).not.toContain(UNLOCKED);
  });

  it('asks for the operator password when the sign-in is not fresh, and refuses a wrong one; nothing is typed', async () => {
    expect(await codeOf(web(oldToken()).human.answerSecret({ session: 'agent-sudo-b', secret: SECRET, source_ip: '127.0.0.1' }))).toBe('UNAUTHENTICATED');
    expect(lastAttempt()).toMatchObject({ actor: 'web:admin', tool: 'dashboard_secret', decision: 'BLOCKED', error_code: 'UNAUTHENTICATED', preview: null });
    // The wrong password holds the source back for a second. It is tried on a throttle clock a
    // minute behind, so that hold is over when the right one comes (the test neither waits
    // nor passes only when the machine is slow enough to take a second in between).
    const realNow = deps.webauth.now;
    deps.webauth.now = () => realNow() - 60_000;
    expect(await codeOf(web(freshToken()).human.answerSecret({ session: 'agent-sudo-b', secret: SECRET, operator_password: 'wrong-password-1', source_ip: '127.0.0.1' }).finally(() => (deps.webauth.now = realNow)))).toBe('UNAUTHENTICATED');
    expect(await screen('agent-sudo-b')).not.toContain(UNLOCKED);
    // The right password makes an old sign-in fresh again.
    const sent = await web(oldToken()).human.answerSecret({ session: 'agent-sudo-b', secret: SECRET, operator_password: OPERATOR_PASSWORD, source_ip: '127.0.0.1' });
    expect(sent).toMatchObject({ result: 'SENT', session: 'agent-sudo-b', text_length: SECRET.length });
    await vi.waitFor(async () => expect(await screen('agent-sudo-b')).toContain(UNLOCKED), { timeout: 20_000, interval: 50 });
  }, 30_000);

  it('types the answer into exactly that pane after a fresh sign-in, audits length and HMAC with the operator, and leaves it in no file of the state directory', async () => {
    const sent = await web(freshToken()).human.answerSecret({ session: 'agent-sudo-c', secret: SECRET, source_ip: '127.0.0.1' });
    expect(sent).toEqual({ result: 'SENT', session: 'agent-sudo-c', audit_id: expect.any(Number), text_length: SECRET.length });
    await vi.waitFor(async () => expect(await screen('agent-sudo-c')).toContain(UNLOCKED), { timeout: 20_000, interval: 50 });
    expect(await screen('agent-sudo-a')).not.toContain(UNLOCKED);
    const row = lastAttempt();
    expect(row).toMatchObject({ actor: 'web:admin', tool: 'dashboard_secret', decision: 'SENT', error_code: null, text_length: SECRET.length, preview: null });
    expect(row.text_hmac).toMatch(/^[0-9a-f]{16,}$/);
    // Every file the broker keeps (SQLite files with their WAL, keys, transcripts).
    deps.stores.db('audit').pragma('wal_checkpoint(TRUNCATE)');
    const files = filesUnder(stateDir);
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) expect(readFileSync(file).includes(Buffer.from(SECRET)), file).toBe(false);
    expect(await tmux.tmux(['list-buffers', '-F', '#{buffer_sample}'])).not.toContain(SECRET);
  }, 30_000);

  it('refuses a prompt printed by a script named sudo (its executable is bash): NOT_A_CREDENTIAL_PROMPT, audited, nothing typed', async () => {
    const facts = await web(freshToken()).human.promptReader({ session: 'agent-fake-sudo' });
    expect(facts).toMatchObject({ admitted: false, password_needed: false });
    expect(facts.readers.map((r) => r.exe_path)).toEqual([expect.stringMatching(/\/bash$/)]);
    expect(facts.reason).toContain('shell or interpreter');
    expect(await codeOf(web(freshToken()).human.answerSecret({ session: 'agent-fake-sudo', secret: SECRET, source_ip: '127.0.0.1' }))).toBe('NOT_A_CREDENTIAL_PROMPT');
    expect(lastAttempt()).toMatchObject({ actor: 'web:admin', tool: 'dashboard_secret', decision: 'BLOCKED', error_code: 'NOT_A_CREDENTIAL_PROMPT', text_length: SECRET.length, preview: null });
    expect(await screen('agent-fake-sudo')).not.toContain('DIGEST-');
    // The real prompt: admitted, named by its executable; an old sign-in needs the password.
    const real = await web(oldToken()).human.promptReader({ session: 'agent-sudo-a' });
    expect(real).toMatchObject({ admitted: true, password_needed: true });
    expect(real.readers.map((r) => r.exe_path)).toEqual(['/usr/bin/ssh-keygen']);
    expect(real.chain.map((r) => r.name)).toEqual(['bash', 'ssh-keygen']);
  });

  it('answers the prompt of the pane it names (a split pane that is not the active one)', async () => {
    expect((await web(freshToken()).sessions.status({ session: 'agent-sudo-d', pane: splitPane })).status).toBe('WAITING_HUMAN');
    const sent = await web(freshToken()).human.answerSecret({ session: 'agent-sudo-d', pane: splitPane, secret: SECRET, source_ip: '127.0.0.1' });
    expect(sent).toMatchObject({ result: 'SENT', session: 'agent-sudo-d' });
    await vi.waitFor(async () => expect(await screen(splitPane)).toContain(UNLOCKED), { timeout: 20_000, interval: 50 });
    expect(lastAttempt()).toMatchObject({ tool: 'dashboard_secret', decision: 'SENT', preview: null });
  }, 30_000);
});
