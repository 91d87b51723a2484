// Guards the input path: every gate refuses AND is audited; hostile texts reach the pane as exactly those bytes and nothing runs; sends to one pane never interleave; identity is re-checked at the moment of sending; a failing audit log sends nothing; idempotent tasks send once.
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readAppErrorData, type InputAuditEntry } from '@terminal-mcp/contract';
import Database from 'better-sqlite3';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTmuxServer, type TmuxTestServer } from '../../../../test/src/helpers/tmux-server.js';
import { configSchema, type BrokerConfig } from '../config/schema.js';
import type { BrokerDeps } from '../rpc/deps.js';
import { AUDIT_KEY_FILE_NAME, loadOrCreateAuditKey } from '../effects/audit-key-file.js';
import { createTmuxAdapter, type ControlModeTmuxAdapter } from '../effects/tmux/adapter.js';
import { createContextInner } from '../rpc/context.js';
import { gatewayRouter } from '../rpc/roles/gateway.js';
import { webRouter } from '../rpc/roles/web.js';
import { createCallerFactory } from '../rpc/trpc.js';
import { createSession } from '../webauth/sessions.js';
import { listInputAudit } from '../audit/list-input-audit.js';
import { recoverInterruptedInput } from './services.js';
import { testDeps, withConfig } from '../testing/deps.testkit.js';
import { writeRawReader } from '../../../../test/src/helpers/raw-reader.js';

const CONFIG = configSchema.parse({
  permissions: { terminal_read: true, terminal_input: true },
  allowed_session_patterns: ['agent-*', 'in-*', 'ssh-literal'],
  input_policy: {
    allowed_session_patterns: ['agent-*', 'in-*', 'ssh-literal'],
    denied_session_patterns: ['agent-denied*'],
    max_text_length: 12_000,
  },
});

let tmux: TmuxTestServer;
let adapter: ControlModeTmuxAdapter;
let root: string;
let deps: BrokerDeps;
let readerScript: string;
let fakeBin: string;
let counter = 0;

beforeAll(async () => {
  tmux = await startTmuxServer();
  adapter = createTmuxAdapter({ socketName: tmux.socketName, configFile: '/dev/null' });
  expect(await adapter.waitUntilConnected(10_000)).toBe(true);
  root = mkdtempSync(join(tmpdir(), 'tmcp-input-'));
  deps = testDeps({ config: CONFIG, tmux: adapter, stateDir: join(root, 'state'), log: pino({ level: 'silent' }), info: { version: 'test', startedAt: new Date(), tmuxSocket: tmux.socketName } });
  recoverInterruptedInput(deps);
  // Writes every byte the pane's terminal delivers to a file, in raw mode (no line
  // discipline: no 4 KB canonical line limit, no echo, nothing interpreted).
  readerScript = writeRawReader(root);
  // A harmless process whose name is a guarded command.
  fakeBin = join(root, 'bin');
  mkdirSync(fakeBin);
  symlinkSync('/bin/sleep', join(fakeBin, 'ssh'));
});

afterAll(async () => {
  await adapter?.close();
  deps?.stores.close();
  await tmux?.kill();
  if (root) rmSync(root, { recursive: true, force: true });
});

const gw = (config: BrokerConfig = CONFIG, actor = 'gateway:input-test') =>
  createCallerFactory(gatewayRouter)(createContextInner({ role: 'gateway', deps: withConfig(deps, config), actor }));

async function codeOf(p: Promise<unknown>): Promise<string | undefined> {
  try {
    await p;
  } catch (err) {
    return (readAppErrorData((err as { cause?: unknown }).cause) ?? readAppErrorData(err))?.code;
  }
  throw new Error('expected a refusal');
}

/** The newest row of the whole audit, whichever client made it (a gateway client's
 * audit.listInput sees only its own rows). */
async function newestAudit(): Promise<InputAuditEntry> {
  const { entries } = listInputAudit(deps, { limit: 1 }, 'all');
  return entries[0]!;
}

const unique = (prefix: string) => `${prefix}-${++counter}`;

/** A pane running the raw reader; `read()` returns what arrived, `\r` shown as `\n`. */
async function rawPane(name = unique('in-raw')) {
  const out = join(root, `${name}.out`);
  const ready = `${out}.ready`;
  const session = await tmux.newSession(name, `exec python3 ${readerScript} ${out} ${ready}`, { width: 120, height: 30 });
  await vi.waitFor(() => expect(existsSync(ready)).toBe(true), { timeout: 60_000, interval: 25 });
  const size = () => (existsSync(out) ? statSync(out).size : 0);
  return {
    name,
    session,
    out,
    size,
    read: (fromByte = 0) => (existsSync(out) ? readFileSync(out).subarray(fromByte).toString('utf8').replaceAll('\r', '\n') : ''),
    async waitForBytes(n: number) {
      await vi.waitFor(() => expect(size()).toBeGreaterThanOrEqual(n), { timeout: 60_000, interval: 20 });
    },
  };
}

/** A pane whose program appends every line it reads (cooked mode, echoed) to a file. */
async function linePane(name = unique('in-lines')) {
  const out = join(root, `${name}.lines`);
  const ready = `${out}.ready`;
  const session = await tmux.newSession(
    name,
    `exec bash --norc --noprofile -c 'touch ${ready}; while IFS= read -r line; do printf "%s\\n" "$line" >> ${out}; done'`,
    { width: 120, height: 30 },
  );
  await vi.waitFor(() => expect(existsSync(ready)).toBe(true), { timeout: 60_000, interval: 25 });
  return { name, session, out, lines: () => (existsSync(out) ? readFileSync(out, 'utf8').split('\n').slice(0, -1) : []) };
}

async function sessionNames(): Promise<string[]> {
  return (await tmux.tmux(['list-sessions', '-F', '#{session_name}'])).split('\n').sort();
}

describe('hostile texts arrive as exactly those bytes and nothing runs', () => {
  it('delivers each text verbatim to a raw reader, runs no tmux command and no shell', async () => {
    const pane = await rawPane();
    const pwn = ['hash', 'dollar', 'tick'].map((w) => join(root, `pwned-${w}`));
    const twelveK = 'abc;#(touch x)$(y)`z` '.repeat(600).slice(0, 12_000);
    const texts = [
      'ends with a semicolon;',
      '-starts-with-dash',
      '-t foo',
      `#(touch ${pwn[0]})`,
      `$(touch ${pwn[1]})`,
      `\`touch ${pwn[2]}\``,
      '; kill-server',
      ' ; new-session -d -s pwned ;',
      `it's "double" and 'single' quoted \\ back\\slash`,
      'unicode: héllo wörld 日本語 ✓ 😀 שלום',
      'tab\tseparated\nmulti\nline',
      'crlf one\r\ncrlf two\r\n',
      twelveK,
    ];
    const before = await sessionNames();
    for (const text of texts) {
      const expected = text.replaceAll('\r\n', '\n');
      const start = pane.size();
      const result = await gw().input.sendText({ session: pane.name, text });
      expect(result).toMatchObject({ result: 'SENT', session: pane.name, crlf_normalized: text.includes('\r\n'), enter_pressed: false });
      await pane.waitForBytes(start + Buffer.byteLength(expected));
      expect(pane.read(start)).toBe(expected);
      const audit = await newestAudit();
      expect(audit).toMatchObject({ id: result.audit_id, decision: 'SENT', error_code: null, text_length: Array.from(expected).length, tool: 'terminal_send_text' });
      expect(audit.preview!.length).toBeLessThanOrEqual(120);
      expect(audit.text_hmac).toMatch(/^[0-9a-f]{64}$/);
    }
    expect(Buffer.byteLength(pane.read())).toBe(texts.reduce((n, t) => n + Buffer.byteLength(t.replaceAll('\r\n', '\n')), 0));
    await new Promise((r) => setTimeout(r, 200));
    for (const file of pwn) expect(existsSync(file)).toBe(false);
    expect(await sessionNames()).toEqual(before);
  });

  it('refuses a bracketed-paste breakout and every other control character, sending nothing', async () => {
    const pane = await rawPane();
    // Bidirectional overrides and zero-width characters too (issue 45), unless the operator allows them.
    for (const text of ['\x1b[201~; touch /tmp/never', 'a\x1bb', 'bell\x07', 'cr\ronly', 'nul\x00', 'c1\u009b2J', 'rlo \u202e', 'zw\u200bsp']) {
      expect(await codeOf(gw().input.sendText({ session: pane.name, text }))).toBe('TEXT_REJECTED');
      expect(await newestAudit()).toMatchObject({ decision: 'BLOCKED', error_code: 'TEXT_REJECTED', session: pane.name });
    }
    await new Promise((r) => setTimeout(r, 200));
    expect(pane.size()).toBe(0);
  });

  it('presses allowlisted keys by name and Enter after text', async () => {
    const pane = await rawPane();
    await gw().input.sendText({ session: pane.name, text: 'echo hi', enter: true });
    await gw().input.sendKeys({ session: pane.name, keys: ['Up', 'Tab', 'C-c'], confirm_sensitive: true });
    await pane.waitForBytes(8 + 3 + 1 + 1);
    expect(pane.read()).toBe('echo hi\n\x1b[A\t\x03');
    expect(await newestAudit()).toMatchObject({ decision: 'SENT', keys: ['Up', 'Tab', 'C-c'], tool: 'terminal_send_keys' });
  });
});

describe('every gate refuses and is audited', () => {
  it.each([
    ['INPUT_DISABLED (global switch)', { permissions: { terminal_read: true, terminal_input: false } }, 'text'],
    ['INPUT_DISABLED (text turned off)', { input_policy: { ...CONFIG.input_policy, allow_send_text: false } }, 'text'],
    ['INPUT_NOT_ALLOWED (not in the input allowlist)', { input_policy: { ...CONFIG.input_policy, allowed_session_patterns: ['other-*'] } }, 'text'],
    ['INPUT_NOT_ALLOWED (not readable)', { allowed_session_patterns: ['other-*'] }, 'keys'],
  ] as const)('%s', async (label, override, kind) => {
    const pane = await rawPane();
    const config = configSchema.parse({ ...CONFIG, ...override });
    const call = kind === 'text' ? gw(config).input.sendText({ session: pane.name, text: 'x' }) : gw(config).input.sendKeys({ session: pane.name, keys: ['Enter'] });
    const code = label.split(' ')[0];
    expect(await codeOf(call)).toBe(code);
    expect(await newestAudit()).toMatchObject({ decision: 'BLOCKED', error_code: code, session: pane.name, actor: 'gateway:input-test' });
    expect(pane.size()).toBe(0);
  });

  it('INPUT_NOT_ALLOWED for a denied pattern, before looking at tmux', async () => {
    expect(await codeOf(gw().input.sendText({ session: 'agent-denied-1', text: 'x' }))).toBe('INPUT_NOT_ALLOWED');
    expect(await newestAudit()).toMatchObject({ decision: 'BLOCKED', error_code: 'INPUT_NOT_ALLOWED', session: 'agent-denied-1', session_id: null });
  });

  it('INPUT_NOT_ALLOWED for a sensitive name reached by a glob; allowed when listed literally', async () => {
    const sensitive = await rawPane('in-root-box');
    expect(await codeOf(gw().input.sendText({ session: sensitive.name, text: 'x' }))).toBe('INPUT_NOT_ALLOWED');
    expect(await newestAudit()).toMatchObject({ decision: 'BLOCKED', error_code: 'INPUT_NOT_ALLOWED' });
    const literal = await rawPane('ssh-literal');
    await gw().input.sendText({ session: literal.name, text: 'ok' });
    await literal.waitForBytes(2);
  });

  it('SESSION_NOT_FOUND for a missing session', async () => {
    expect(await codeOf(gw().input.sendKeys({ session: 'agent-missing', keys: ['Enter'] }))).toBe('SESSION_NOT_FOUND');
    expect(await newestAudit()).toMatchObject({ decision: 'BLOCKED', error_code: 'SESSION_NOT_FOUND', session: 'agent-missing' });
  });

  it('COMMAND_GUARDED for a pane running ssh, unless allowed for that session', async () => {
    const name = unique('in-guarded');
    // An `ssh` that reads the terminal (cat under that name): a busy one takes no input at all.
    const readingBin = join(root, 'reading-bin');
    mkdirSync(readingBin, { recursive: true });
    if (!existsSync(join(readingBin, 'ssh'))) symlinkSync('/bin/cat', join(readingBin, 'ssh'));
    await tmux.newSession(name, `exec ${join(readingBin, 'ssh')}`);
    await vi.waitFor(async () => expect((await adapter.listSessions()).find((s) => s.name === name)?.activePane?.currentCommand).toBe('ssh'), {
      timeout: 10_000,
    });
    expect(await codeOf(gw().input.sendText({ session: name, text: 'x' }))).toBe('COMMAND_GUARDED');
    expect(await newestAudit()).toMatchObject({ decision: 'BLOCKED', error_code: 'COMMAND_GUARDED' });
    const allowing = configSchema.parse({ ...CONFIG, input_policy: { ...CONFIG.input_policy, guarded_command_allow: [{ session: name, commands: ['ssh'] }] } });
    expect(await gw(allowing).input.sendKeys({ session: name, keys: ['Enter'], dry_run: true })).toMatchObject({ result: 'DRY_RUN' });
    expect(await newestAudit()).toMatchObject({ decision: 'DRY_RUN', error_code: null });
  });

  it('PANE_IN_COPY_MODE for text and keys; q leaves copy mode', async () => {
    const pane = await rawPane();
    await tmux.tmux(['copy-mode', '-t', pane.session.paneId]);
    expect(await codeOf(gw().input.sendText({ session: pane.name, text: 'x' }))).toBe('PANE_IN_COPY_MODE');
    expect(await newestAudit()).toMatchObject({ decision: 'BLOCKED', error_code: 'PANE_IN_COPY_MODE' });
    expect(await codeOf(gw().input.sendKeys({ session: pane.name, keys: ['Enter'] }))).toBe('PANE_IN_COPY_MODE');
    expect(await gw().input.sendKeys({ session: pane.name, keys: ['q'] })).toMatchObject({ result: 'SENT', action: 'exit_copy_mode' });
    expect(await tmux.tmux(['display-message', '-p', '-t', pane.session.paneId, '#{pane_in_mode}'])).toBe('0');
    expect(pane.size()).toBe(0);
  });

  it('TEXT_TOO_LONG, KEY_NOT_ALLOWED, CONFIRMATION_REQUIRED', async () => {
    const pane = await rawPane();
    expect(await codeOf(gw().input.sendText({ session: pane.name, text: 'x'.repeat(12_001) }))).toBe('TEXT_TOO_LONG');
    expect(await newestAudit()).toMatchObject({ decision: 'BLOCKED', error_code: 'TEXT_TOO_LONG', text_length: 12_001 });
    expect(await codeOf(gw().input.sendKeys({ session: pane.name, keys: ['Enter', 'kill-server;'] }))).toBe('KEY_NOT_ALLOWED');
    expect(await newestAudit()).toMatchObject({ decision: 'BLOCKED', error_code: 'KEY_NOT_ALLOWED' });
    expect(await codeOf(gw().input.sendKeys({ session: pane.name, keys: ['C-d'] }))).toBe('CONFIRMATION_REQUIRED');
    expect(await newestAudit()).toMatchObject({ decision: 'BLOCKED', error_code: 'CONFIRMATION_REQUIRED', keys: ['C-d'] });
    await new Promise((r) => setTimeout(r, 150));
    expect(pane.size()).toBe(0);
  });

  it('BINDING_NOT_FOUND and INPUT_DISABLED (binding flag off)', async () => {
    expect(await codeOf(gw().input.sendBound({ binding: 'no-such-binding', text: 'x' }))).toBe('BINDING_NOT_FOUND');
    expect(await newestAudit()).toMatchObject({ decision: 'BLOCKED', error_code: 'BINDING_NOT_FOUND', binding: 'no-such-binding' });
    const pane = await rawPane();
    await gw().bindings.bind({ binding: `b-${counter}`, session: pane.name });
    expect(await codeOf(gw().input.sendBound({ binding: `b-${counter}`, text: 'x' }))).toBe('INPUT_DISABLED');
    expect(await newestAudit()).toMatchObject({ decision: 'BLOCKED', error_code: 'INPUT_DISABLED', binding: `b-${counter}`, session: pane.name });
    await gw().bindings.bind({ binding: `b-${counter}`, session: pane.name, input_enabled: true });
    await gw().input.sendBound({ binding: `b-${counter}`, text: 'via binding' });
    await pane.waitForBytes(11);
    expect(pane.read()).toBe('via binding');
  });

  it("LEASE_BUSY when another sender holds the pane's lock past the wait", async () => {
    const pane = await rawPane();
    const facts = (await adapter.listSessions()).find((s) => s.name === pane.name)!;
    const locks = deps.input.locks;
    const key = `${facts.serverPid}:${pane.session.paneId}`;
    const release = await locks.acquire(key, 0);
    expect(release).not.toBeNull();
    try {
      expect(await codeOf(gw().input.sendText({ session: pane.name, text: 'x' }))).toBe('LEASE_BUSY');
      expect(await newestAudit()).toMatchObject({ decision: 'BLOCKED', error_code: 'LEASE_BUSY' });
    } finally {
      release?.();
    }
    expect(pane.size()).toBe(0);
  }, 20_000);

  it('dry_run runs every gate, records DRY_RUN and sends nothing', async () => {
    const pane = await rawPane();
    expect(await gw().input.sendText({ session: pane.name, text: 'never typed', dry_run: true })).toMatchObject({ result: 'DRY_RUN' });
    expect(await newestAudit()).toMatchObject({ decision: 'DRY_RUN', preview: null, text_length: 11 });
    expect(await gw().input.sendTask({ session: pane.name, text: 'never typed', dry_run: true })).toMatchObject({ receipt: 'DRY_RUN' });
    await new Promise((r) => setTimeout(r, 150));
    expect(pane.size()).toBe(0);
  });
});

describe("the operator's grants", () => {
  /** The dashboard acting for the operator `admin`: its session token travels with the call. */
  const web = () => {
    const env = deps.webauth;
    const user = env.store.findUserByName('admin') ?? env.store.createUser({ username: 'admin', passwordHash: 'unused', mustChangePassword: false, now: Date.now() })!;
    return createCallerFactory(webRouter)(createContextInner({ role: 'web', deps, operatorToken: createSession(env, user.id).token }));
  };

  it('an input grant admits a session no pattern admits; a read-only grant does not; revoking stops it', async () => {
    const pane = await rawPane(unique('work-granted'));
    expect(await codeOf(gw().input.sendText({ session: pane.name, text: 'x' }))).toBe('INPUT_NOT_ALLOWED');
    await web().grants.set({ session: pane.name, read: true, input: false });
    expect(await codeOf(gw().input.sendText({ session: pane.name, text: 'x' }))).toBe('INPUT_NOT_ALLOWED');
    await web().grants.set({ session: pane.name, read: true, input: true });
    await web().input.sendText({ session: pane.name, text: 'granted' });
    await pane.waitForBytes(7);
    expect(pane.read()).toBe('granted');
    expect(await newestAudit()).toMatchObject({ decision: 'SENT', actor: 'web:admin', session: pane.name });
    await web().grants.revoke({ session: pane.name });
    expect(await codeOf(gw().input.sendText({ session: pane.name, text: 'x' }))).toBe('INPUT_NOT_ALLOWED');
  });

  it("audits the dashboard's calls their schema refuses under the operator, keeping nothing of the text", async () => {
    const pane = await rawPane(unique('work-dash-refused'));
    const call = web() as unknown as { input: Record<string, (input: unknown) => Promise<unknown>> };
    const refused = (p: Promise<unknown>) => p.then(() => 'accepted', (err: { code?: string }) => String(err.code));
    expect(await refused(call.input.sendText!({ session: pane.name, text: 'sneaky-dash', surprise: true }))).toBe('BAD_REQUEST');
    expect(await newestAudit()).toMatchObject({ decision: 'BLOCKED', error_code: 'INVALID_ARGUMENT', tool: 'dashboard_text', actor: 'web:admin', session: pane.name, preview: null, text_hmac: null });
    expect(await refused(call.input.sendKeys!({ session: pane.name, keys: 12 }))).toBe('BAD_REQUEST');
    expect(await newestAudit()).toMatchObject({ decision: 'BLOCKED', error_code: 'INVALID_ARGUMENT', tool: 'dashboard_keys', actor: 'web:admin', session: pane.name });
    expect(JSON.stringify(await newestAudit())).not.toContain('sneaky-dash');
    expect(pane.size()).toBe(0);
  });

  it('does not tell a missing unlisted session from an existing one', async () => {
    expect(await codeOf(gw().input.sendText({ session: 'work-does-not-exist', text: 'x' }))).toBe('INPUT_NOT_ALLOWED');
    expect(await codeOf(gw().input.sendText({ session: 'agent-does-not-exist', text: 'x' }))).toBe('SESSION_NOT_FOUND');
  });
});

describe('identity is re-read at the moment of sending', () => {
  /** Holds the pane's lock so a send resolves, writes its PENDING row and waits; lets the
   * test change the session; then releases. Deterministic: no timing races. */
  async function whileSendWaits(name: string, paneId: string, change: () => Promise<void>, send: () => Promise<unknown>) {
    const facts = (await adapter.listSessions()).find((s) => s.name === name)!;
    const locks = deps.input.locks;
    const key = `${facts.serverPid}:${paneId}`;
    const release = await locks.acquire(key, 0);
    const sending = codeOf(send());
    await vi.waitFor(async () => expect((await newestAudit()).decision).toBe('PENDING'), { timeout: 60_000, interval: 20 });
    await change();
    release?.();
    return sending;
  }

  it('refuses a direct send whose session was killed and recreated under the same name', async () => {
    const pane = await rawPane();
    let replacement: Awaited<ReturnType<typeof rawPane>> | undefined;
    const code = await whileSendWaits(
      pane.name,
      pane.session.paneId,
      async () => {
        await tmux.tmux(['kill-session', '-t', pane.session.sessionId]);
        replacement = await rawPane(pane.name);
      },
      () => gw().input.sendText({ session: pane.name, text: 'must not arrive' }),
    );
    expect(code).toBe('IDENTITY_CHANGED');
    expect(await newestAudit()).toMatchObject({ decision: 'BLOCKED', error_code: 'IDENTITY_CHANGED', session_id: pane.session.sessionId });
    await new Promise((r) => setTimeout(r, 150));
    expect(replacement!.size()).toBe(0);
  });

  it('refuses a send whose pane was respawned (same pane id, new process)', async () => {
    const pane = await rawPane();
    const code = await whileSendWaits(
      pane.name,
      pane.session.paneId,
      () => tmux.tmux(['respawn-pane', '-k', '-t', pane.session.paneId, 'sleep 3600']).then(() => undefined),
      () => gw().input.sendKeys({ session: pane.name, keys: ['Enter'] }),
    );
    expect(code).toBe('IDENTITY_CHANGED');
  });

  it('re-runs the gates on fresh facts: a pane that entered copy mode meanwhile is refused', async () => {
    const pane = await rawPane();
    const code = await whileSendWaits(
      pane.name,
      pane.session.paneId,
      () => tmux.tmux(['copy-mode', '-t', pane.session.paneId]).then(() => undefined),
      () => gw().input.sendText({ session: pane.name, text: 'x' }),
    );
    expect(code).toBe('PANE_IN_COPY_MODE');
    expect(pane.size()).toBe(0);
  });
});

describe('terminal_send_task', () => {
  it('types, sees the text land, presses Enter once and confirms', async () => {
    const pane = await linePane();
    const receipt = await gw().input.sendTask({ session: pane.name, text: 'build the thing\n' });
    expect(receipt).toMatchObject({ receipt: 'SUBMIT_CONFIRMED', text_landed: true, enter_pressed: true, replayed: false, error_code: null });
    await vi.waitFor(() => expect(pane.lines()).toEqual(['build the thing']));
    expect(await newestAudit()).toMatchObject({ id: receipt.audit_id, decision: 'SENT', receipt: 'SUBMIT_CONFIRMED', tool: 'terminal_send_task' });
  });

  it('returns BLOCKED receipts with the gate, audited', async () => {
    const pane = await linePane();
    const off = configSchema.parse({ ...CONFIG, permissions: { terminal_read: true, terminal_input: false } });
    const receipt = await gw(off).input.sendTask({ session: pane.name, text: 'x' });
    expect(receipt).toMatchObject({ receipt: 'BLOCKED', error_code: 'INPUT_DISABLED', enter_pressed: false });
    expect(receipt.hint).toMatch(/operator/);
    expect(await newestAudit()).toMatchObject({ id: receipt.audit_id, decision: 'BLOCKED', error_code: 'INPUT_DISABLED' });
  });

  it('two concurrent tasks on one pane do not interleave', async () => {
    const pane = await linePane();
    const a = `alpha ${'a'.repeat(300)} end-a`;
    const b = `bravo ${'b'.repeat(300)} end-b`;
    const receipts = await Promise.all([gw().input.sendTask({ session: pane.name, text: a }), gw().input.sendTask({ session: pane.name, text: b })]);
    for (const r of receipts) expect(r.receipt).toBe('SUBMIT_CONFIRMED');
    await vi.waitFor(() => expect(pane.lines().length).toBe(2));
    expect(pane.lines().sort()).toEqual([a, b]);
  });

  it('replays the first receipt for a reused idempotency key and sends nothing', async () => {
    const pane = await linePane();
    const first = await gw().input.sendTask({ session: pane.name, text: 'only once', idempotency_key: `key-${counter}` });
    expect(first.receipt).toBe('SUBMIT_CONFIRMED');
    const again = await gw().input.sendTask({ session: pane.name, text: 'only once', idempotency_key: `key-${counter}` });
    expect(again).toEqual({ ...first, replayed: true });
    // The replay and the mismatch are audited; neither keeps a preview.
    expect(await newestAudit()).toMatchObject({ decision: 'BLOCKED', error_code: null, receipt: 'REPLAYED', preview: null, session: pane.name, tool: 'terminal_send_task' });
    expect(await codeOf(gw().input.sendTask({ session: pane.name, text: 'something else', idempotency_key: `key-${counter}` }))).toBe('INVALID_ARGUMENT');
    expect(await newestAudit()).toMatchObject({ decision: 'BLOCKED', error_code: 'INVALID_ARGUMENT', preview: null, session: pane.name });
    // A replay while input is off answers INPUT_DISABLED, not the old receipt.
    const inputOff = configSchema.parse({ ...CONFIG, permissions: { terminal_read: true, terminal_input: false } });
    expect(await gw(inputOff).input.sendTask({ session: pane.name, text: 'only once', idempotency_key: `key-${counter}` })).toMatchObject({
      receipt: 'BLOCKED',
      error_code: 'INPUT_DISABLED',
      replayed: false,
    });
    expect(await newestAudit()).toMatchObject({ decision: 'BLOCKED', error_code: 'INPUT_DISABLED' });
    await new Promise((r) => setTimeout(r, 300));
    expect(pane.lines()).toEqual(['only once']);
    // A key whose attempt was blocked sends nothing and stays free.
    const off = configSchema.parse({ ...CONFIG, permissions: { terminal_read: true, terminal_input: false } });
    expect((await gw(off).input.sendTask({ session: pane.name, text: 'later', idempotency_key: `key2-${counter}` })).receipt).toBe('BLOCKED');
    expect((await gw().input.sendTask({ session: pane.name, text: 'later', idempotency_key: `key2-${counter}` })).receipt).toBe('SUBMIT_CONFIRMED');
    await vi.waitFor(() => expect(pane.lines()).toEqual(['only once', 'later']));
  });

  it('does not press Enter when the text never shows in the input line', async () => {
    const pane = await rawPane(); // raw mode: no echo, so the text never appears
    const receipt = await gw().input.sendTask({ session: pane.name, text: 'invisible' });
    expect(receipt).toMatchObject({ receipt: 'DELIVERY_UNKNOWN', text_landed: false, enter_pressed: false });
    await pane.waitForBytes(9);
    await new Promise((r) => setTimeout(r, 150));
    expect(pane.read()).toBe('invisible');
  });
});

describe('the audit log', () => {
  it('keeps no text: length, keyed HMAC, redacted preview of at most 120 characters', async () => {
    const pane = await rawPane();
    const secret = 'sk-ant-api03-' + 'Q'.repeat(40);
    const text = `export ANTHROPIC_API_KEY=${secret} ${'z'.repeat(200)}`;
    await gw().input.sendText({ session: pane.name, text });
    const entry = await newestAudit();
    expect(entry.preview).not.toContain(secret.slice(0, 20));
    expect(entry.preview).toContain('[REDACTED');
    expect(Array.from(entry.preview!).length).toBeLessThanOrEqual(120);
    expect(entry.text_length).toBe(text.length);
    const raw = readFileSync(join(root, 'state', 'audit.db'));
    expect(raw.includes(Buffer.from(secret))).toBe(false);
    const keyFile = join(root, 'state', AUDIT_KEY_FILE_NAME);
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    expect(statSync(keyFile).size).toBe(32);
  });

  it('keeps a preview only of text that is sent: none for refused or dry-run attempts', async () => {
    const pane = await rawPane();
    const secret = 'ghp_' + 'R'.repeat(36);
    await gw().input.sendText({ session: pane.name, text: `token ${secret} please`, dry_run: true });
    expect(await newestAudit()).toMatchObject({ decision: 'DRY_RUN', preview: null });
    expect(await codeOf(gw().input.sendText({ session: pane.name, text: `token ${secret}\x1b[201~` }))).toBe('TEXT_REJECTED');
    expect(await newestAudit()).toMatchObject({ decision: 'BLOCKED', error_code: 'TEXT_REJECTED', preview: null });
    expect(await codeOf(gw().input.sendText({ session: 'agent-denied-x', text: `token ${secret}` }))).toBe('INPUT_NOT_ALLOWED');
    expect(await newestAudit()).toMatchObject({ decision: 'BLOCKED', preview: null });
    expect(await codeOf(gw().input.sendKeys({ session: pane.name, keys: ['F13-hunter2'] }))).toBe('KEY_NOT_ALLOWED');
    expect(await newestAudit()).toMatchObject({ decision: 'BLOCKED', keys: ['(not on the allowlist)'] });
    // Sent: a preview, redacted by the shared redactor.
    await gw().input.sendText({ session: pane.name, text: `token ${secret} please` });
    const sent = await newestAudit();
    expect(sent).toMatchObject({ decision: 'SENT' });
    expect(sent.preview).toContain('[REDACTED');
    expect(sent.preview).not.toContain(secret.slice(4, 20));
    expect(readFileSync(join(root, 'state', 'audit.db')).includes(Buffer.from(secret))).toBe(false);
  });

  it('audits calls their schema refuses, keeping nothing of the text', async () => {
    const pane = await rawPane();
    const call = gw() as unknown as { input: Record<string, (input: unknown) => Promise<unknown>> };
    // In process the schema failure is tRPC's BAD_REQUEST; on the wire it is INVALID_ARGUMENT.
    const schemaRefusal = async (p: Promise<unknown>) => p.then(() => 'accepted', (err: { code?: string }) => (err.code === 'BAD_REQUEST' ? 'INVALID_ARGUMENT' : String(err.code)));
    expect(await schemaRefusal(call.input.sendText!({ session: pane.name, text: 'sneaky', surprise: true }))).toBe('INVALID_ARGUMENT');
    expect(await newestAudit()).toMatchObject({ decision: 'BLOCKED', error_code: 'INVALID_ARGUMENT', tool: 'terminal_send_text', session: pane.name, preview: null, text_hmac: null });
    expect(await schemaRefusal(call.input.sendTask!({ session: pane.name, binding: 'both-given', text: 'x' }))).toBe('INVALID_ARGUMENT');
    expect(await newestAudit()).toMatchObject({ decision: 'BLOCKED', error_code: 'INVALID_ARGUMENT', tool: 'terminal_send_task' });
    expect(await schemaRefusal(call.input.sendKeys!({ session: 'x'.repeat(5000), keys: 'Enter' }))).toBe('INVALID_ARGUMENT');
    expect(await newestAudit()).toMatchObject({ decision: 'BLOCKED', error_code: 'INVALID_ARGUMENT', tool: 'terminal_send_keys', session: null });
    expect(await codeOf(gw().input.sendTask({ session: pane.name, text: ' \n\t ' }))).toBe('INVALID_ARGUMENT');
    expect(await newestAudit()).toMatchObject({ decision: 'BLOCKED', error_code: 'INVALID_ARGUMENT', tool: 'terminal_send_task', session: pane.name });
    expect(pane.size()).toBe(0);
  });

  it('sends nothing when the audit log cannot be written (AUDIT_UNAVAILABLE)', async () => {
    const pane = await rawPane();
    // Another process holds audit.db's write lock: the broker's insert fails after its busy timeout.
    const blocker = new Database(join(root, 'state', 'audit.db'));
    blocker.exec('BEGIN IMMEDIATE');
    try {
      expect(await codeOf(gw().input.sendText({ session: pane.name, text: 'must not arrive' }))).toBe('AUDIT_UNAVAILABLE');
      expect((await gw().input.sendTask({ session: pane.name, text: 'must not arrive' }).catch((e: unknown) => e)) instanceof Error).toBe(true);
    } finally {
      blocker.exec('ROLLBACK');
      blocker.close();
    }
    await new Promise((r) => setTimeout(r, 200));
    expect(pane.size()).toBe(0);
  }, 30_000);

  it('lists newest first with filters and a cursor', async () => {
    const pane = await rawPane();
    const lister = () => gw(CONFIG, 'gateway:lister');
    // Dry runs keep no preview: the rows are told apart by their text length.
    for (let i = 0; i < 3; i++) await lister().input.sendText({ session: pane.name, text: 'n'.repeat(i + 1), dry_run: true });
    const page1 = await lister().audit.listInput({ session: pane.name, limit: 2 });
    expect(page1.entries.map((e) => e.text_length)).toEqual([3, 2]);
    const page2 = await lister().audit.listInput({ session: pane.name, limit: 2, cursor: page1.next_cursor! });
    expect(page2.entries.map((e) => e.text_length)).toEqual([1]);
    expect(page2.next_cursor).toBeNull();
    expect((await lister().audit.listInput({ actor: 'gateway:lister', decision: 'DRY_RUN' })).entries).toHaveLength(3);
    expect((await lister().audit.listInput({ session: pane.name, since: new Date(Date.now() + 60_000).toISOString() })).entries).toEqual([]);
    expect(await codeOf(lister().audit.listInput({ cursor: 'garbage' }))).toBe('INVALID_ARGUMENT');
  });

  it('records pane-content reads cheaply (actor, tool, target, line count)', async () => {
    const pane = await rawPane();
    await gw(CONFIG, 'gateway:reader').sessions.tail({ session: pane.name, lines: 5 });
    await gw(CONFIG, 'gateway:reader').input.context({ session: pane.name });
    // Read rows are queued (never slowing the read): wait for them, however slow the machine.
    const readRows = () => {
      const db = new Database(join(root, 'state', 'audit.db'), { readonly: true });
      try {
        return db.prepare("SELECT tool, session_name, line_count FROM read_audit WHERE actor = 'gateway:reader' ORDER BY id").all();
      } finally {
        db.close();
      }
    };
    await vi.waitFor(() => expect(readRows()).toHaveLength(2), { timeout: 60_000, interval: 50 });
    const rows = readRows();
    expect(rows.map((r) => (r as { tool: string }).tool)).toEqual(['terminal_tail', 'terminal_input_context']);
    expect(rows[0]).toMatchObject({ session_name: pane.name });
  });
});

describe('terminal_input_context', () => {
  it('shows command, copy mode, status, last lines and which gates pass', async () => {
    const pane = await linePane();
    await tmux.tmux(['send-keys', '-t', pane.session.paneId, '-l', 'visible-marker']);
    await vi.waitFor(async () => expect((await gw().input.context({ session: pane.name })).text).toContain('visible-marker'));
    const ctx = await gw().input.context({ session: pane.name });
    expect(ctx).toMatchObject({ session: pane.name, current_command: 'bash', in_copy_mode: false, input_enabled: true, max_text_length: 12_000 });
    expect(ctx.gates).toEqual({ text: { allowed: true, error_code: null, message: null }, keys: { allowed: true, error_code: null, message: null } });
    const off = configSchema.parse({ ...CONFIG, input_policy: { ...CONFIG.input_policy, allow_send_text: false } });
    const limited = await gw(off).input.context({ session: pane.name });
    expect(limited.gates.text).toMatchObject({ allowed: false, error_code: 'INPUT_DISABLED' });
    expect(limited.gates.keys.allowed).toBe(true);
    expect(await codeOf(gw().input.context({ session: 'private-x' }))).toBe('SESSION_NOT_FOUND');
  });
});

describe('startup recovery', () => {
  it('reports attempts left PENDING by a dead broker as DELIVERY_UNKNOWN', () => {
    const db = deps.stores.db('audit');
    const id = Number(
      db
        .prepare("INSERT INTO input_audit (at, role, actor, tool, decision) VALUES (?, 'gateway', 'gateway:crashed', 'terminal_send_text', 'PENDING')")
        .run(Date.now()).lastInsertRowid,
    );
    recoverInterruptedInput(deps);
    expect(db.prepare('SELECT decision FROM input_audit WHERE id = ?').get(id)).toEqual({ decision: 'DELIVERY_UNKNOWN' });
  });

  it('creates the audit key once (0600, exclusive) and refuses one that others can read', () => {
    const stateDir = mkdtempSync(join(tmpdir(), 'tmcp-key-'));
    try {
      const key = loadOrCreateAuditKey(stateDir);
      expect(loadOrCreateAuditKey(stateDir).equals(key)).toBe(true);
      chmodSync(join(stateDir, AUDIT_KEY_FILE_NAME), 0o644);
      expect(() => loadOrCreateAuditKey(stateDir)).toThrow(/mode 0600/);
    } finally {
      rmSync(stateDir, { recursive: true, force: true });
    }
  });
});
