// Input to one pane inside a session (issue 29 item 4): a wait for the named pane's state (resumed on that pane); text, keys, tasks and terminal_run given `pane` arrive in exactly that pane and in no other (the active one included); the input context reads that pane; a hostile pane value is refused by the broker itself (the schema is not trusted), a pane of another session is refused as not found and nothing arrives there; a binding made with `pane` pins that pane, reaches it whichever pane is active, and is refused (IDENTITY_CHANGED) once the pane is killed, respawned or swapped into another session.
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readAppErrorData, type InputAuditEntry } from '@terminal-mcp/contract';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTmuxServer, type TmuxTestServer } from '../../../../test/src/helpers/tmux-server.js';
import { configSchema } from '../config/schema.js';
import type { BrokerDeps } from '../rpc/deps.js';
import { createTmuxAdapter, type ControlModeTmuxAdapter } from '../effects/tmux/adapter.js';
import { createContextInner } from '../rpc/context.js';
import { gatewayRouter } from '../rpc/roles/gateway.js';
import { createCallerFactory } from '../rpc/trpc.js';
import { listInputAudit } from '../audit/list-input-audit.js';
import { sendText } from './send.js';
import { testDeps } from '../testing/deps.testkit.js';
import { writeRawReader } from '../../../../test/src/helpers/raw-reader.js';

const CONFIG = configSchema.parse({
  permissions: { terminal_read: true, terminal_input: true },
  allowed_session_patterns: ['in-*'],
  input_policy: { allowed_session_patterns: ['in-*'] },
});

let tmux: TmuxTestServer;
let adapter: ControlModeTmuxAdapter;
let root: string;
let deps: BrokerDeps;
let readerScript: string;
let counter = 0;

beforeAll(async () => {
  tmux = await startTmuxServer();
  adapter = createTmuxAdapter({ socketName: tmux.socketName, configFile: '/dev/null' });
  expect(await adapter.waitUntilConnected(10_000)).toBe(true);
  root = mkdtempSync(join(tmpdir(), 'tmcp-panes-input-'));
  deps = testDeps({ config: CONFIG, tmux: adapter, stateDir: join(root, 'state'), log: pino({ level: 'silent' }), info: { version: 'test', startedAt: new Date(), tmuxSocket: tmux.socketName } });
  // Every byte the pane's terminal delivers, to a file, in raw mode (nothing echoed or interpreted).
  readerScript = writeRawReader(root);
});

afterAll(async () => {
  await adapter?.close();
  deps?.stores.close();
  await tmux?.kill();
  if (root) rmSync(root, { recursive: true, force: true });
});

const gw = () => createCallerFactory(gatewayRouter)(createContextInner({ role: 'gateway', deps, actor: 'gateway:panes-test' }));

async function codeOf(p: Promise<unknown>): Promise<string | undefined> {
  try {
    await p;
  } catch (err) {
    return (readAppErrorData((err as { cause?: unknown }).cause) ?? readAppErrorData(err))?.code;
  }
  throw new Error('expected a refusal');
}

const newestAudit = (): InputAuditEntry => listInputAudit(deps, { limit: 1 }, 'all').entries[0]!;

/** A raw reader's command line and its output file. */
function reader(label: string) {
  const out = join(root, `${label}-${++counter}.out`);
  const ready = `${out}.ready`;
  return {
    command: `exec python3 ${readerScript} ${out} ${ready}`,
    out,
    ready: () => vi.waitFor(() => expect(existsSync(ready)).toBe(true), { timeout: 60_000, interval: 25 }),
    read: () => (existsSync(out) ? readFileSync(out, 'utf8').replaceAll('\r', '\n') : ''),
    size: () => (existsSync(out) ? statSync(out).size : 0),
  };
}

type Reader = ReturnType<typeof reader>;

/** A session with panes 0.0 and 0.1 (split) and 1.0 (a second window, the active one), each a raw reader. */
async function threePanes() {
  const name = `in-panes-${++counter}`;
  const readers: Reader[] = [reader('w0p0'), reader('w0p1'), reader('w1p0')];
  const s = await tmux.newSession(name, readers[0]!.command, { width: 120, height: 30 });
  const p01 = (await tmux.tmux(['split-window', '-d', '-P', '-F', '#{pane_id}', '-t', s.paneId, readers[1]!.command])).trim();
  const p10 = (await tmux.tmux(['new-window', '-P', '-F', '#{pane_id}', '-t', `${s.sessionId}:1`, readers[2]!.command])).trim();
  for (const r of readers) await r.ready();
  return { name, sessionId: s.sessionId, ids: [s.paneId, p01, p10], readers };
}

/** Waits until `r` holds `text`, then checks that no other reader received anything. */
async function arrivedOnlyIn(r: Reader, all: readonly Reader[], text: string): Promise<void> {
  await vi.waitFor(() => expect(r.read()).toContain(text), { timeout: 60_000, interval: 20 });
  // Give a misdirected delivery the time to land before checking that none did.
  await new Promise((done) => setTimeout(done, 200));
  for (const other of all) if (other !== r) expect(other.read()).not.toContain(text);
}

describe('input to one pane of a session', () => {
  it('delivers text and keys to exactly the named pane, by %id and by window.pane, never the active one', async () => {
    const t = await threePanes();
    const [a, b] = t.readers as [Reader, Reader, Reader];
    const sent = await gw().input.sendText({ session: t.name, pane: t.ids[1]!, text: 'to-the-split-pane' });
    expect(sent).toMatchObject({ result: 'SENT', session: t.name, pane_id: t.ids[1] });
    await arrivedOnlyIn(b, t.readers, 'to-the-split-pane');
    expect(newestAudit()).toMatchObject({ decision: 'SENT', session: t.name, pane_id: t.ids[1] });

    await gw().input.sendText({ session: t.name, pane: '0.0', text: 'to-window-zero', enter: true });
    await arrivedOnlyIn(a, t.readers, 'to-window-zero\n');

    const keys = await gw().input.sendKeys({ session: t.name, pane: '0.1', keys: ['Up'] });
    expect(keys.pane_id).toBe(t.ids[1]);
    await arrivedOnlyIn(b, t.readers, '\x1b[A');

    // Without pane: the active pane (window 1), as before.
    await gw().input.sendText({ session: t.name, text: 'to-the-active-pane' });
    await arrivedOnlyIn(t.readers[2]!, t.readers, 'to-the-active-pane');
  });

  it('submits a task to the named pane and reads its input context', async () => {
    const t = await threePanes();
    // A line reader (cooked mode: the typed line is echoed, so the task's landing check sees it) in pane 0.1.
    const lines = join(root, `task-${counter}.lines`);
    const ready = `${lines}.ready`;
    await tmux.tmux(['respawn-pane', '-k', '-t', t.ids[1]!, `exec bash --norc --noprofile -c 'touch ${ready}; while IFS= read -r line; do printf "%s\\n" "$line" >> ${lines}; done'`]);
    await vi.waitFor(() => expect(existsSync(ready)).toBe(true), { timeout: 60_000, interval: 25 });
    const context = await gw().input.context({ session: t.name, pane: t.ids[1]! });
    expect(context).toMatchObject({ session: t.name, pane_id: t.ids[1], current_command: 'bash' });
    const receipt = await gw().input.sendTask({ session: t.name, pane: '0.1', text: 'task-for-the-split-pane' });
    expect(receipt).toMatchObject({ receipt: 'SUBMIT_CONFIRMED', pane_id: t.ids[1] });
    await vi.waitFor(() => expect(existsSync(lines) ? readFileSync(lines, 'utf8') : '').toBe('task-for-the-split-pane\n'), { timeout: 60_000, interval: 20 });
    for (const other of [t.readers[0]!, t.readers[2]!]) expect(other.read()).not.toContain('task-for-the-split-pane');
  });

  it('runs a command in the shell of the named pane (terminal_run), not in the active one', async () => {
    const t = await threePanes();
    await tmux.tmux(['respawn-pane', '-k', '-t', t.ids[1]!, "env PS1='$ ' HISTFILE=/dev/null bash --norc --noprofile -i"]);
    await vi.waitFor(async () => expect(await tmux.tmux(['capture-pane', '-p', '-t', t.ids[1]!])).toContain('$'), { timeout: 60_000, interval: 25 });
    const result = await gw().input.run({ session: t.name, pane: '0.1', command: 'echo ran-in-the-split-$((6*7))', timeout_s: 20 });
    expect(result).toMatchObject({ state: 'DONE', exit_status: 0, pane_id: t.ids[1] });
    expect(result.output).toContain('ran-in-the-split-42');
    for (const r of [t.readers[0]!, t.readers[2]!]) expect(r.size()).toBe(0);
  });

  it('waits for the state of the named pane, and its resume token keeps that pane', async () => {
    const t = await threePanes();
    const go = join(root, `go-${counter}`);
    await tmux.tmux(['respawn-pane', '-k', '-t', t.ids[1]!, `bash --norc --noprofile -c 'while [ ! -e ${go} ]; do sleep 0.1; done; read -p "Ship it? [y/N] " a; exec sleep 600'`]);
    const pending = await gw().wait.forState({ session: t.name, pane: '0.1', states: ['WAITING_INPUT'], timeout_s: 0 });
    expect(pending.state).toBe('PENDING');
    writeFileSync(go, '');
    const reached = await gw().wait.resume({ resume_token: pending.resume_token!, timeout_s: 20 });
    expect(reached).toMatchObject({ state: 'WAITING_INPUT', session: t.name });
    expect(reached.status.reason).toContain('[y/N]');
    // The active pane (a raw reader with a blank screen) asks nothing.
    expect((await gw().wait.forState({ session: t.name, states: ['WAITING_INPUT'], timeout_s: 0 })).state).toBe('PENDING');
    expect((await gw().wait.forState({ session: t.name, pane: t.ids[1]!, states: ['WAITING_INPUT'], timeout_s: 5 })).state).toBe('WAITING_INPUT');
  });

  it('refuses hostile pane values in the broker itself and a pane of another session, sending nothing', async () => {
    const t = await threePanes();
    const other = await threePanes();
    for (const hostile of ['%1;kill', '-t', '#{pane_id}', '1.2 ', ':1', `${other.name}:0.0`]) {
      // Past the schema: the broker parses the value again.
      const refused = await sendText(createContextInner({ role: 'gateway', deps, actor: 'gateway:panes-test' }), {
        tool: 'terminal_send_text',
        target: { session: t.name, pane: hostile },
        text: 'never',
        enter: false,
        dryRun: false,
      }).catch((err: unknown) => readAppErrorData(err)?.code);
      expect(refused, hostile).toBe('INVALID_ARGUMENT');
      // At the edge: the contract schema refuses it (tRPC BAD_REQUEST), audited as INVALID_ARGUMENT.
      const atEdge = await gw()
        .input.sendText({ session: t.name, pane: hostile, text: 'never' })
        .catch((err: unknown) => (err as { code?: string }).code);
      expect(atEdge, hostile).toBe('BAD_REQUEST');
      expect(newestAudit()).toMatchObject({ decision: 'BLOCKED', error_code: 'INVALID_ARGUMENT' });
    }
    // The other session's pane by its id: not a pane of this session.
    expect(await codeOf(gw().input.sendText({ session: t.name, pane: other.ids[0]!, text: 'never-foreign' }))).toBe('SESSION_NOT_FOUND');
    expect(newestAudit()).toMatchObject({ decision: 'BLOCKED', error_code: 'SESSION_NOT_FOUND', session: t.name });
    expect(await codeOf(gw().input.sendKeys({ session: t.name, pane: other.ids[0]!, keys: ['Enter'] }))).toBe('SESSION_NOT_FOUND');
    expect(await codeOf(gw().input.sendText({ session: t.name, pane: '5.0', text: 'never' }))).toBe('SESSION_NOT_FOUND');
    await new Promise((done) => setTimeout(done, 200));
    for (const r of [...t.readers, ...other.readers]) expect(r.size()).toBe(0);
  });
});

describe('bindings pinned to one pane', () => {
  it('pins the named pane: bound input reaches it whichever pane is active', async () => {
    const t = await threePanes();
    const bound = await gw().bindings.bind({ binding: `pane-${counter}`, session: t.name, pane: '0.1', input_enabled: true });
    expect(bound).toMatchObject({ pane_id: t.ids[1], state: 'OK' });
    await gw().input.sendBound({ binding: `pane-${counter}`, text: 'through-the-binding' });
    await arrivedOnlyIn(t.readers[1]!, t.readers, 'through-the-binding');
    await gw().input.sendKeys({ binding: `pane-${counter}`, keys: ['Down'] });
    await arrivedOnlyIn(t.readers[1]!, t.readers, '\x1b[B');
  });

  it.each([
    ['killed', (t: Awaited<ReturnType<typeof threePanes>>) => tmux.tmux(['kill-pane', '-t', t.ids[1]!])],
    ['respawned (same id, new process)', (t: Awaited<ReturnType<typeof threePanes>>) => tmux.tmux(['respawn-pane', '-k', '-t', t.ids[1]!, 'exec sleep 3600'])],
    [
      'swapped into another session',
      async (t: Awaited<ReturnType<typeof threePanes>>) => {
        const elsewhere = await tmux.newSession(`in-elsewhere-${++counter}`, 'exec sleep 3600');
        await tmux.tmux(['swap-pane', '-d', '-s', t.ids[1]!, '-t', elsewhere.paneId]);
      },
    ],
  ] as const)('refuses a binding whose pane was %s (IDENTITY_CHANGED), sending nothing', async (_how, change) => {
    const t = await threePanes();
    const name = `pane-${++counter}`;
    await gw().bindings.bind({ binding: name, session: t.name, pane: t.ids[1]!, input_enabled: true });
    await change(t);
    const before = t.readers.map((r) => r.size());
    expect(await codeOf(gw().input.sendBound({ binding: name, text: 'never-after-change' }))).toBe('IDENTITY_CHANGED');
    expect(newestAudit()).toMatchObject({ decision: 'BLOCKED', error_code: 'IDENTITY_CHANGED' });
    expect(await codeOf(gw().bindings.tail({ binding: name }))).toBe('IDENTITY_CHANGED');
    expect((await gw().bindings.get({ binding: name })).state).toBe('IDENTITY_CHANGED');
    await new Promise((done) => setTimeout(done, 200));
    expect(t.readers.map((r) => r.size())).toEqual(before);
  });
});
