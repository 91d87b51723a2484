// Guards input containment: a guarded command hidden from tmux's foreground command (wrapped, piped, in a new terminal, a subprocess, renamed with exec -a) is refused — also when it starts while the send waits for the pane lock; a shell foreground is reported; allowed_foreground_commands keeps input out of shells.
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readAppErrorData, type InputAuditEntry } from '@terminal-mcp/contract';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTmuxServer, type TmuxTestServer } from '../../../../test/src/helpers/tmux-server.js';
import { configSchema, type BrokerConfig } from '../config/schema.js';
import type { BrokerDeps } from '../rpc/deps.js';
import { createTmuxAdapter, type ControlModeTmuxAdapter } from '../effects/tmux/adapter.js';
import { createContextInner } from '../rpc/context.js';
import { gatewayRouter } from '../rpc/roles/gateway.js';
import { webRouter } from '../rpc/roles/web.js';
import { operatorToken } from '../webauth/operator-token.testkit.js';
import { createCallerFactory } from '../rpc/trpc.js';
import { recoverInterruptedInput } from './services.js';
import { testDeps, withConfig } from '../testing/deps.testkit.js';

const CONFIG = configSchema.parse({
  permissions: { terminal_read: true, terminal_input: true },
  allowed_session_patterns: ['agent-*'],
  input_policy: { allowed_session_patterns: ['agent-*'] },
});
/** Input only into agent CLIs (and the test's python reader). */
const agentsOnly = () => configSchema.parse({ ...CONFIG, input_policy: { ...CONFIG.input_policy, allowed_foreground_commands: ['claude', 'codex', 'python3'] } });

let tmux: TmuxTestServer;
let adapter: ControlModeTmuxAdapter;
let root: string;
let deps: BrokerDeps;
/** A script named ssh: touches its first argument, then waits while that file exists
 * (never connects anywhere). It ends by itself once afterAll removes the test's directory:
 * under `script` it sits on a terminal of its own, which killing the tmux server does not
 * hang up, and a fixed `sleep 3600` outlived the run by an hour (with `script` above it). */
let sshScript: string;
/** A binary named ssh: a symlink to sleep (its exe is sleep, its comm is ssh). */
let sshBinary: string;
let readerScript: string;
let counter = 0;

beforeAll(async () => {
  tmux = await startTmuxServer();
  adapter = createTmuxAdapter({ socketName: tmux.socketName, configFile: '/dev/null' });
  expect(await adapter.waitUntilConnected(10_000)).toBe(true);
  root = mkdtempSync(join(tmpdir(), 'tmcp-contain-'));
  deps = testDeps({ config: CONFIG, tmux: adapter, stateDir: join(root, 'state'), log: pino({ level: 'silent' }), info: { version: 'test', startedAt: new Date(), tmuxSocket: tmux.socketName } });
  recoverInterruptedInput(deps);
  mkdirSync(join(root, 'bin'));
  mkdirSync(join(root, 'bin2'));
  sshScript = join(root, 'bin', 'ssh');
  // A loop, so no shell turns the last command into an exec (the script stays `ssh`).
  writeFileSync(sshScript, '#!/bin/sh\n: > "$1"\nwhile [ -e "$1" ]; do sleep 1; done\n');
  chmodSync(sshScript, 0o755);
  sshBinary = join(root, 'bin2', 'ssh');
  symlinkSync('/bin/sleep', sshBinary);
  readerScript = join(root, 'reader.py');
  writeFileSync(readerScript, 'import os, sys\nopen(sys.argv[1], "w").close()\nwhile os.read(0, 4096):\n    pass\n');
});

afterAll(async () => {
  await adapter?.close();
  deps?.stores.close();
  await tmux?.kill();
  if (root) rmSync(root, { recursive: true, force: true });
});

const gw = (config: BrokerConfig = CONFIG) => createCallerFactory(gatewayRouter)(createContextInner({ role: 'gateway', deps: withConfig(deps, config), actor: 'gateway:contain-test' }));

async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    return (readAppErrorData((err as { cause?: unknown }).cause) ?? readAppErrorData(err))?.code ?? 'no code';
  }
  return 'accepted';
}

async function newestAudit(): Promise<InputAuditEntry> {
  const { entries } = await gw().audit.listInput({ limit: 1 });
  return entries[0]!;
}

const unique = (prefix: string) => `${prefix}-${++counter}`;
const marker = () => join(root, `ready-${++counter}`);

/** What tmux itself reports as the pane's foreground command (the old gate's only fact). */
async function tmuxCommand(name: string): Promise<string | undefined> {
  return (await adapter.listSessions()).find((s) => s.name === name)?.activePane?.currentCommand;
}

async function waitForTmuxCommand(name: string, expected: (c: string) => boolean) {
  await vi.waitFor(async () => expect(expected((await tmuxCommand(name)) ?? '')).toBe(true), { timeout: 60_000, interval: 50 });
}

/** An interactive shell at its prompt (job control on, like a terminal a person uses). */
async function shellPane(name = unique('agent-shell')) {
  const session = await tmux.newSession(name, 'exec bash --norc --noprofile -i', { width: 160, height: 30 });
  await waitForTmuxCommand(name, (c) => c === 'bash');
  return { name, session, type: (line: string) => tmux.tmux(['send-keys', '-t', session.paneId, '-l', line]).then(() => tmux.tmux(['send-keys', '-t', session.paneId, 'Enter'])) };
}

describe('a guarded command anywhere in the pane is refused, whatever tmux shows', () => {
  const q = (s: string) => `'${s.replaceAll("'", "'\\''")}'`;
  // [label, pane command (ready = a file that exists once ssh runs), what tmux shows]
  const bypasses: [string, (ready: string) => string, (c: string) => boolean][] = [
    ["bash -c 'ssh ...; true'", (m) => `exec bash -c ${q(`${sshScript} ${m}; true`)}`, (c) => c === 'bash'],
    ['script -qc ssh (a new terminal)', (m) => `exec script -qc ${q(`${sshScript} ${m}`)} /dev/null`, (c) => c === 'script'],
    ['a Python subprocess', (m) => `exec python3 -c ${q('import subprocess, sys; subprocess.run(sys.argv[1:])')} ${sshScript} ${m}`, (c) => c.startsWith('python')],
    ['exec -a notssh ssh', (m) => `exec bash -c ${q(`: > ${m}; exec -a notssh ${sshBinary} 3600`)}`, (c) => c === 'notssh'],
  ];

  it.each(bypasses)('%s', async (_label, command, tmuxShows) => {
    const name = unique('agent-wrapped');
    const ready = marker();
    await tmux.newSession(name, command(ready));
    await vi.waitFor(() => expect(existsSync(ready)).toBe(true), { timeout: 60_000, interval: 25 });
    await waitForTmuxCommand(name, tmuxShows);
    expect(await tmuxCommand(name)).not.toBe('ssh'); // the premise: tmux does not see ssh

    expect(await codeOf(gw().input.sendText({ session: name, text: 'echo typed' }))).toBe('COMMAND_GUARDED');
    expect(await newestAudit()).toMatchObject({ decision: 'BLOCKED', error_code: 'COMMAND_GUARDED', session: name });
    expect(await codeOf(gw().input.sendKeys({ session: name, keys: ['Enter'] }))).toBe('COMMAND_GUARDED');
  }, 40_000);

  it('cat | ssh typed at a shell prompt (cat leads the foreground group)', async () => {
    const pane = await shellPane();
    const ready = marker();
    await pane.type(`cat | ${sshScript} ${ready}`);
    await vi.waitFor(() => expect(existsSync(ready)).toBe(true), { timeout: 60_000, interval: 25 });
    await waitForTmuxCommand(pane.name, (c) => c === 'cat');

    expect(await codeOf(gw().input.sendTask({ session: pane.name, text: 'yes' }))).toBe('accepted'); // a task answers BLOCKED as a receipt
    expect(await newestAudit()).toMatchObject({ decision: 'BLOCKED', error_code: 'COMMAND_GUARDED' });
    expect(await codeOf(gw().input.sendText({ session: pane.name, text: 'yes' }))).toBe('COMMAND_GUARDED');
  }, 40_000);

  it('a guarded command that starts while the send waits for the lock is caught under the lock', async () => {
    const pane = await shellPane();
    const facts = (await adapter.listSessions()).find((s) => s.name === pane.name)!;
    const locks = deps.input.locks;
    const key = `${facts.serverPid}:${pane.session.paneId}`;
    const release = await locks.acquire(key, 0);
    expect(release).not.toBeNull();
    let sending: Promise<string>;
    try {
      sending = codeOf(gw().input.sendText({ session: pane.name, text: 'typed into ssh' }));
      await vi.waitFor(async () => expect((await newestAudit()).decision).toBe('PENDING'), { timeout: 60_000, interval: 20 });
      await pane.type(`exec -a notssh ${sshBinary} 3600`);
      await waitForTmuxCommand(pane.name, (c) => c === 'notssh');
    } finally {
      release?.();
    }
    expect(await sending).toBe('COMMAND_GUARDED');
    // Written PENDING with a preview before the lock; refused, it keeps none.
    expect(await newestAudit()).toMatchObject({ decision: 'BLOCKED', error_code: 'COMMAND_GUARDED', preview: null });
  }, 40_000);
});

describe('a shell in the foreground', () => {
  it('terminal_input_context says so, with a warning; not for other programs', async () => {
    const shell = await shellPane();
    const context = await gw().input.context({ session: shell.name });
    expect(context).toMatchObject({ foreground_program: 'bash', foreground_is_shell: true });
    expect(context.warning).toMatch(/shell.*every session/);

    const name = unique('agent-reader');
    const ready = marker();
    await tmux.newSession(name, `exec python3 ${readerScript} ${ready}`);
    await vi.waitFor(() => expect(existsSync(ready)).toBe(true), { timeout: 60_000, interval: 25 });
    expect(await gw().input.context({ session: name })).toMatchObject({ foreground_is_shell: false, warning: null });

    // The dashboard's session list carries the same fact for its input box.
    const web = createCallerFactory(webRouter)(createContextInner({ role: 'web', deps, operatorToken: operatorToken(deps, 'admin') }));
    const listed = new Map((await web.grants.list()).sessions.map((s) => [s.name, s.foreground_shell]));
    expect(listed.get(shell.name)).toBe(true);
    expect(listed.get(name)).toBe(false);
  }, 30_000);

  it('exec -a claude bash is still reported as a shell', async () => {
    const name = unique('agent-disguised');
    await tmux.newSession(name, 'exec -a claude bash --norc --noprofile -i');
    await waitForTmuxCommand(name, (c) => c === 'claude');
    expect(await gw().input.context({ session: name })).toMatchObject({ foreground_program: 'bash', foreground_is_shell: true });
  }, 30_000);

  it('with allowed_foreground_commands, typing `tmux capture-pane` into an allowed shell is refused', async () => {
    const secret = unique('db-private');
    await tmux.newSession(secret, 'exec bash --norc --noprofile -c "echo TOPSECRET-ROWS; exec sleep 3600"');
    const shell = await shellPane();
    const out = join(root, `${shell.name}.leak`);
    const attack = `tmux capture-pane -p -t ${secret} > ${out}`;

    const receipt = await gw(agentsOnly()).input.sendTask({ session: shell.name, text: attack });
    expect(receipt).toMatchObject({ receipt: 'BLOCKED', error_code: 'FOREGROUND_NOT_ALLOWED' });
    expect(receipt.message).toContain('input_policy.allowed_foreground_commands');
    expect(await codeOf(gw(agentsOnly()).input.sendText({ session: shell.name, text: attack, enter: true }))).toBe('FOREGROUND_NOT_ALLOWED');
    expect(await codeOf(gw(agentsOnly()).input.sendKeys({ session: shell.name, keys: ['Up'] }))).toBe('FOREGROUND_NOT_ALLOWED');
    expect(await newestAudit()).toMatchObject({ decision: 'BLOCKED', error_code: 'FOREGROUND_NOT_ALLOWED' });
    expect((await gw(agentsOnly()).input.context({ session: shell.name })).gates.text).toMatchObject({ allowed: false, error_code: 'FOREGROUND_NOT_ALLOWED' });
    await new Promise((r) => setTimeout(r, 300));
    expect(existsSync(out)).toBe(false);
  }, 30_000);

  it('allowed_foreground_commands admits a listed program and refuses it disguised', async () => {
    const name = unique('agent-python');
    const ready = marker();
    await tmux.newSession(name, `exec python3 ${readerScript} ${ready}`);
    await vi.waitFor(() => expect(existsSync(ready)).toBe(true), { timeout: 60_000, interval: 25 });
    expect(await gw(agentsOnly()).input.sendText({ session: name, text: 'hello' })).toMatchObject({ result: 'SENT' });

    const disguised = unique('agent-fake-claude');
    await tmux.newSession(disguised, 'exec -a claude bash --norc --noprofile -i');
    await waitForTmuxCommand(disguised, (c) => c === 'claude');
    expect(await codeOf(gw(agentsOnly()).input.sendText({ session: disguised, text: 'id' }))).toBe('FOREGROUND_NOT_ALLOWED');
  }, 30_000);
});

describe('type-ahead (issue 24, finding 7)', () => {
  it('text sent while a command runs that reads the terminal next (`…; read -s pw`) is refused, and the reader gets only what comes later', async () => {
    const pane = await shellPane();
    const go = marker();
    const out = marker();
    // The shell is busy (a wait loop) and will then read a password from the terminal.
    await pane.type(`while [ ! -e ${go} ]; do sleep 0.2; done; IFS= read -rs pw; printf '%s\\n' "$pw" > ${out}`);
    await waitForTmuxCommand(pane.name, (c) => c === 'sleep');

    expect(await codeOf(gw().input.sendText({ session: pane.name, text: 'hunter2', enter: true }))).toBe('FOREGROUND_NOT_ALLOWED');
    expect(await newestAudit()).toMatchObject({ decision: 'BLOCKED', error_code: 'FOREGROUND_NOT_ALLOWED', session: pane.name });
    expect(await codeOf(gw().input.sendKeys({ session: pane.name, keys: ['y', 'Enter'] }))).toBe('FOREGROUND_NOT_ALLOWED');

    // Now the reader runs; the first line it gets is the one typed after it started.
    writeFileSync(go, '');
    await waitForTmuxCommand(pane.name, (c) => c === 'bash');
    await vi.waitFor(async () => expect(await codeOf(gw().input.sendText({ session: pane.name, text: 'typed-when-asked', enter: true, dry_run: true }))).toBe('accepted'), { timeout: 15_000, interval: 100 });
    expect(await codeOf(gw().input.sendText({ session: pane.name, text: 'typed-when-asked', enter: true }))).toBe('accepted');
    // Wait for the whole line: `>` creates the file empty before printf writes it.
    await vi.waitFor(() => expect(existsSync(out) && readFileSync(out, 'utf8').endsWith('\n')).toBe(true), { timeout: 15_000, interval: 25 });
    expect(readFileSync(out, 'utf8')).toBe('typed-when-asked\n');
  }, 40_000);
});
