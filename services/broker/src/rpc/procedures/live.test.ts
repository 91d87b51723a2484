// The dashboard's live view streams redacted screen frames of readable sessions only: the current screen first, new output soon after it is printed, never a secret, and no watcher left once the subscriber is gone.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readAppErrorData, type PaneScreenFrame } from '@terminal-mcp/contract';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { TmuxTestServer, TmuxTestSession } from '../../../../../test/src/helpers/tmux-server.js';
import { DEFAULT_CONFIG } from '../../config/schema.js';
import type { BrokerDeps } from '../deps.js';
import { WATCHER_TERM, type PaneWatcher } from '../../effects/tmux/pane-watch.js';
import { createContextInner } from '../context.js';
import { webRouter } from '../roles/web.js';
import { createCallerFactory } from '../trpc.js';
import { startLiveTestBroker, type LiveTestBroker } from '../../testing/live-broker.testkit.js';
import { operatorToken } from '../../webauth/operator-token.testkit.js';
import { invalidateSessionToken } from '../../webauth/sessions.js';

const GRACE_MS = 150;
/** Generous: frames come within ~100 ms of output; this only bounds a hang. */
const FRAME_TIMEOUT_MS = 10_000;

let server: TmuxTestServer;
let paneWatch: PaneWatcher;
let root: string;
let deps: BrokerDeps;
let broker: LiveTestBroker | undefined;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'tmcp-live-'));
  broker = await startLiveTestBroker({ config: DEFAULT_CONFIG, stateDir: join(root, 'state'), graceMs: GRACE_MS });
  ({ server, paneWatch, deps } = broker);
});

afterEach(async () => {
  await vi.waitFor(async () => expect(await watcherClients()).toEqual([]), { timeout: 60_000, interval: 50 });
});

afterAll(async () => {
  await broker?.close();
  if (root) rmSync(root, { recursive: true, force: true });
});

async function watcherClients(): Promise<string[]> {
  const out = await server.tmux(['list-clients', '-F', '#{client_termname}\t#{session_name}']);
  return out.split('\n').filter((l) => l.startsWith(`${WATCHER_TERM}\t`));
}

function web(signal?: AbortSignal) {
  return createCallerFactory(webRouter)(createContextInner({ role: 'web', deps }), signal ? { signal } : undefined);
}

async function subscribe(session: string, signal?: AbortSignal, pane?: string): Promise<AsyncIterator<PaneScreenFrame>> {
  const iterable = (await web(signal).live.paneOutput({ session, ...(pane !== undefined ? { pane } : {}), operatorSession: operatorToken(deps, 'admin') })) as AsyncIterable<PaneScreenFrame>;
  return iterable[Symbol.asyncIterator]();
}

function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  return Promise.race([p, new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`timed out: ${what}`)), ms))]);
}

/** Reads frames until one satisfies `pred`; returns every frame read. */
async function framesUntil(it: AsyncIterator<PaneScreenFrame>, pred: (f: PaneScreenFrame) => boolean): Promise<PaneScreenFrame[]> {
  const seen: PaneScreenFrame[] = [];
  const deadline = Date.now() + FRAME_TIMEOUT_MS;
  for (;;) {
    const next = await withTimeout(it.next(), Math.max(1, deadline - Date.now()), 'a matching frame');
    if (next.done === true) throw new Error('subscription ended');
    seen.push(next.value);
    if (pred(next.value)) return seen;
  }
}

async function errorCodeOf(p: Promise<unknown>): Promise<string | undefined> {
  try {
    await p;
  } catch (err) {
    return readAppErrorData((err as { cause?: unknown }).cause)?.code ?? readAppErrorData(err)?.code;
  }
  throw new Error('expected an error');
}

async function shellSession(name: string): Promise<TmuxTestSession> {
  const s = await server.newSession(name, 'bash --norc --noprofile', { width: 100, height: 30 });
  await vi.waitFor(async () => expect(await server.tmux(['capture-pane', '-p', '-t', s.paneId])).toMatch(/[$#] *$/m), { timeout: 60_000 });
  return s;
}

describe('live.paneOutput', () => {
  it('serves no frame and attaches no watcher without a signed-in operator (web.sock alone is not enough)', async () => {
    await shellSession('agent-live-anon');
    const tries = async (input: unknown) => {
      const iterable = (await web().live.paneOutput(input as { session: string; operatorSession: string })) as AsyncIterable<PaneScreenFrame>;
      await iterable[Symbol.asyncIterator]().next();
    };
    // No token at all: the contract refuses the subscription before the broker looks at it.
    await expect(tries({ session: 'agent-live-anon' })).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    // A made-up token, an expired one and a signed-out (revoked) one: UNAUTHENTICATED.
    const revoked = operatorToken(deps, 'admin');
    invalidateSessionToken(deps.webauth, revoked);
    for (const operatorSession of ['x'.repeat(32), operatorToken(deps, 'admin', { expired: true }), revoked]) {
      expect(await errorCodeOf(tries({ session: 'agent-live-anon', operatorSession }))).toBe('UNAUTHENTICATED');
    }
    expect(await watcherClients()).toEqual([]);
  });

  it('tells no status without a signed-in operator: a status quotes the screen (web.sock alone is not enough)', async () => {
    const s = await shellSession('agent-live-status');
    await server.tmux(['send-keys', '-t', s.paneId, 'read -p "Ship the release? [y/N] " a', 'Enter']);
    const asOperator = () => createCallerFactory(webRouter)(createContextInner({ role: 'web', deps, operatorToken: operatorToken(deps, 'admin') }));
    await vi.waitFor(async () => expect((await asOperator().sessions.status({ session: 'agent-live-status' })).reason).toContain('[y/N]'), { timeout: 60_000, interval: 50 });
    const anonymous = createCallerFactory(webRouter)(createContextInner({ role: 'web', deps }));
    const forged = createCallerFactory(webRouter)(createContextInner({ role: 'web', deps, operatorToken: 'x'.repeat(43) }));
    expect(await errorCodeOf(anonymous.sessions.status({ session: 'agent-live-status' }))).toBe('UNAUTHENTICATED');
    expect(await errorCodeOf(forged.sessions.status({ session: 'agent-live-status' }))).toBe('UNAUTHENTICATED');
    await server.tmux(['kill-session', '-t', s.sessionId]);
  });

  it('follows the pane it is given, not the active one (issue 29 item 4)', async () => {
    const s = await shellSession('agent-live-pane');
    const split = (await server.tmux(['split-window', '-d', '-P', '-F', '#{pane_id}', '-t', s.paneId, 'bash --norc --noprofile'])).trim();
    await server.tmux(['send-keys', '-t', s.paneId, 'echo "active-$((1+1))"', 'Enter']);
    await vi.waitFor(async () => expect(await server.tmux(['capture-pane', '-p', '-t', s.paneId])).toMatch(/^active-2$/m), { timeout: 60_000 });
    for (const pane of [split, '0.1']) {
      const it = await subscribe('agent-live-pane', undefined, pane);
      const first = (await withTimeout(it.next(), FRAME_TIMEOUT_MS, 'first frame')).value as PaneScreenFrame;
      expect(first.paneId).toBe(split);
      expect(first.data).not.toContain('active-2');
      await server.tmux(['send-keys', '-t', split, `echo "split-$((40+${pane === split ? 2 : 3}))"`, 'Enter']);
      const frames = await framesUntil(it, (f) => f.data.includes(`split-${pane === split ? 42 : 43}`));
      expect(frames.every((f) => f.paneId === split)).toBe(true);
      await it.return?.();
    }
    // The pane tabs' listing: a signed-in operator only (window names are program-set text).
    const asOperator = createCallerFactory(webRouter)(createContextInner({ role: 'web', deps, operatorToken: operatorToken(deps, 'admin') }));
    expect((await asOperator.sessions.panes({ session: 'agent-live-pane' })).panes.map((p) => p.pane_id)).toEqual([s.paneId, split]);
    expect(await errorCodeOf(web().sessions.panes({ session: 'agent-live-pane' }))).toBe('UNAUTHENTICATED');
    // A pane of no session here: refused like a read (nothing streamed).
    const refused = await subscribe('agent-live-pane', undefined, '9.9');
    expect(await errorCodeOf(refused.next())).toBe('SESSION_NOT_FOUND');
    await server.tmux(['kill-session', '-t', s.sessionId]);
  });

  it('starts with the current screen, then follows new output', async () => {
    const s = await shellSession('agent-live');
    await server.tmux(['send-keys', '-t', s.paneId, "printf '\\033[32mgreen-%s\\033[0m\\n' before", 'Enter']);
    await vi.waitFor(async () => expect(await server.tmux(['capture-pane', '-p', '-t', s.paneId])).toMatch(/^green-before$/m));

    const it = await subscribe('agent-live');
    const first = (await withTimeout(it.next(), FRAME_TIMEOUT_MS, 'first frame')).value as PaneScreenFrame;
    expect(first).toMatchObject({ type: 'screen', seq: 0, session: 'agent-live', sessionId: s.sessionId, paneId: s.paneId, width: 100, height: 30 });
    expect(first.data.startsWith('\x1b[0m\x1b[H\x1b[2J')).toBe(true);
    expect(first.data).toContain('\x1b[32mgreen-before'); // colours survive for xterm.js
    expect(first.cursor.visible).toBe(true);
    expect(first.data.endsWith(`\x1b[${first.cursor.y + 1};${first.cursor.x + 1}H\x1b[?25h`)).toBe(true);

    await server.tmux(['send-keys', '-t', s.paneId, 'echo "after-$((20+22))"', 'Enter']);
    const frames = await framesUntil(it, (f) => f.data.includes('after-42'));
    expect(frames.at(-1)!.seq).toBeGreaterThan(0);
    expect(frames.map((f) => f.seq)).toEqual(frames.map((_, i) => i + 1)); // no gaps, no repeats

    await it.return?.();
    // The stream is one read in the read audit, however many frames it sent, under the
    // operator whose token opened it (not the dashboard process's own label).
    deps.input.reads.flush();
    const reads = deps.stores.db('audit').prepare("SELECT role, actor, pane_id, error_code FROM read_audit WHERE tool = 'dashboard_live' AND session_name = 'agent-live'").all();
    expect(reads).toEqual([{ role: 'web', actor: 'web:admin', pane_id: s.paneId, error_code: null }]);
    await server.tmux(['kill-session', '-t', s.sessionId]);
  });

  it('never lets a secret through, even while it is being printed', async () => {
    const s = await shellSession('agent-live-keys');
    const it = await subscribe('agent-live-keys');
    await withTimeout(it.next(), FRAME_TIMEOUT_MS, 'first frame');
    // The command line holds the key in two halves; only the output has it whole.
    await server.tmux([
      'send-keys',
      '-t',
      s.paneId,
      "for i in 1 2 3; do printf 'sk-ant-api03-%s%s\\n' AbCdEfGhIjKl MnOpQrStUvWxYz0123456789; sleep 0.1; done; echo done-printing",
      'Enter',
    ]);
    const frames = await framesUntil(it, (f) => /^done-printing/m.test(f.data.replace(/\r/g, '')));
    const all = frames.map((f) => f.data).join('\n');
    expect(all).not.toContain('AbCdEfGhIjKlMnOp');
    expect(all).toContain('[REDACTED:anthropic_api_key]');
    expect(frames.at(-1)!.redactions).toBeGreaterThanOrEqual(3);
    await it.return?.();
    await server.tmux(['kill-session', '-t', s.sessionId]);
  });

  it('refuses a session the read gate denies, without attaching anything', async () => {
    const s = await shellSession('private-live');
    await server.tmux(['send-keys', '-t', s.paneId, 'echo private-content', 'Enter']);
    const it = await subscribe('private-live');
    expect(await errorCodeOf(it.next())).toBe('SESSION_NOT_ALLOWED');
    // A name no session has is SESSION_NOT_FOUND (discovery lists every name anyway).
    expect(await errorCodeOf((await subscribe('private-missing')).next())).toBe('SESSION_NOT_FOUND');
    expect(paneWatch.watchedSessions()).toEqual([]);
    expect(await watcherClients()).toEqual([]);
    await server.tmux(['kill-session', '-t', s.sessionId]);
  });

  it('detaches the watcher when the subscriber aborts or returns', async () => {
    const s = await shellSession('agent-live-abort');
    const controller = new AbortController();
    const it = await subscribe('agent-live-abort', controller.signal);
    await withTimeout(it.next(), FRAME_TIMEOUT_MS, 'first frame');
    expect(await watcherClients()).toHaveLength(1);
    const pending = it.next(); // waiting for output, as the WebSocket adapter does
    controller.abort();
    expect(await withTimeout(pending, 2_000, 'end after abort')).toEqual({ done: true, value: undefined });
    await vi.waitFor(async () => expect(await watcherClients()).toEqual([]), { timeout: 60_000, interval: 50 });
    expect(paneWatch.watchedSessions()).toEqual([]);

    // A consumer that stops at a frame and returns the iterator.
    const again = await subscribe('agent-live-abort');
    await withTimeout(again.next(), FRAME_TIMEOUT_MS, 'first frame');
    await again.return?.();
    await vi.waitFor(async () => expect(await watcherClients()).toEqual([]), { timeout: 60_000, interval: 50 });
    await server.tmux(['kill-session', '-t', s.sessionId]);
  });

  it('ends with SESSION_NOT_FOUND when the session goes away', async () => {
    const s = await shellSession('agent-live-gone');
    const it = await subscribe('agent-live-gone');
    await withTimeout(it.next(), FRAME_TIMEOUT_MS, 'first frame');
    const pending = it.next();
    await server.tmux(['kill-session', '-t', s.sessionId]);
    expect(await errorCodeOf(withTimeout(pending, FRAME_TIMEOUT_MS, 'end'))).toBe('SESSION_NOT_FOUND');
  });

  it('is the web role only', async () => {
    const { gatewayRouter } = await import('../roles/gateway.js');
    const { observerRouter } = await import('../roles/observer.js');
    expect(Object.keys(gatewayRouter._def.procedures).filter((p) => p.startsWith('live.'))).toEqual([]);
    expect(Object.keys(observerRouter._def.procedures).filter((p) => p.startsWith('live.'))).toEqual([]);
  });
});
