// wait.forState returns as soon as the pane's output moves its status into a wanted state, answers PENDING with a resume token that wait.resume continues, refuses denied sessions and bad tokens, and leaves no watcher behind when its caller goes away.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createBrokerClient } from '@terminal-mcp/broker-client';
import { readAppErrorData, type WaitResult } from '@terminal-mcp/contract';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { TmuxTestServer, TmuxTestSession } from '../../../../../test/src/helpers/tmux-server.js';
import { DEFAULT_CONFIG } from '../../config/schema.js';
import type { BrokerDeps } from '../deps.js';
import { ensureSocketDir } from '../../effects/socket-files.js';
import { WATCHER_TERM, type PaneWatcher } from '../../effects/tmux/pane-watch.js';
import { ResumeTokens } from '../../live/resume-tokens.js';
import { waitForState } from '../../live/wait-for-state.js';
import { createContextInner } from '../context.js';
import { gatewayRouter } from '../roles/gateway.js';
import { webRouter } from '../roles/web.js';
import { serveRoles } from '../serve.js';
import { createCallerFactory } from '../trpc.js';
import { startLiveTestBroker, type LiveTestBroker } from '../../testing/live-broker.testkit.js';
import { operatorToken } from '../../webauth/operator-token.testkit.js';

const GRACE_MS = 150;
const PROMPT = 'read -p "Continue? [y/N] "';

let server: TmuxTestServer;
let paneWatch: PaneWatcher;
let root: string;
let deps: BrokerDeps;
let broker: LiveTestBroker | undefined;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'tmcp-wait-'));
  broker = await startLiveTestBroker({ config: DEFAULT_CONFIG, stateDir: join(root, 'state'), graceMs: GRACE_MS });
  ({ server, paneWatch, deps } = broker);
});

afterEach(async () => {
  // No wait leaves a watcher behind, whatever way it ended.
  await vi.waitFor(async () => expect(await watcherClients()).toEqual([]), { timeout: 60_000, interval: 50 });
  expect(paneWatch.watchedSessions()).toEqual([]);
});

afterAll(async () => {
  await broker?.close();
  if (root) rmSync(root, { recursive: true, force: true });
});

async function watcherClients(): Promise<string[]> {
  const out = await server.tmux(['list-clients', '-F', '#{client_termname}\t#{session_name}']);
  return out.split('\n').filter((l) => l.startsWith(`${WATCHER_TERM}\t`));
}

const gateway = (signal?: AbortSignal, d: BrokerDeps = deps) =>
  createCallerFactory(gatewayRouter)(createContextInner({ role: 'gateway', deps: d }), signal ? { signal } : undefined);
const web = () => createCallerFactory(webRouter)(createContextInner({ role: 'web', deps, operatorToken: operatorToken(deps, 'admin') }));

async function errorOf(p: Promise<unknown>): Promise<{ code?: string; message: string }> {
  try {
    await p;
  } catch (err) {
    const app = readAppErrorData((err as { cause?: unknown }).cause) ?? readAppErrorData(err);
    return { code: app?.code, message: (err as Error).message };
  }
  throw new Error('expected an error');
}

/** A bash at its prompt (status IDLE). */
async function idleShell(name: string): Promise<TmuxTestSession> {
  const s = await server.newSession(name, 'bash --norc --noprofile', { width: 100, height: 30 });
  await vi.waitFor(async () => expect((await web().sessions.status({ session: name })).status).toBe('IDLE'), { timeout: 60_000, interval: 50 });
  return s;
}

const sendKeys = (s: TmuxTestSession, ...keys: string[]) => server.tmux(['send-keys', '-t', s.paneId, ...keys]);

describe('wait.forState', () => {
  it('is woken by the output that brings the wanted state', async () => {
    const s = await idleShell('agent-wait');
    const started = Date.now();
    const waiting = gateway().wait.forState({ session: 'agent-wait', states: ['WAITING_INPUT'], timeout_s: 20 });
    setTimeout(() => void sendKeys(s, `sleep 0.2; ${PROMPT}`, 'Enter'), 300);
    const result = await waiting;
    expect(result).toMatchObject({ state: 'WAITING_INPUT', session: 'agent-wait', session_id: s.sessionId, resume_token: null, resume_expires_at: null });
    expect(result.status.reason).toContain('[y/N]');
    expect(result.waited_ms).toBeLessThan(20_000);
    expect(Date.now() - started).toBeLessThan(20_000); // before the timeout: woken, not timed out
    await server.tmux(['kill-session', '-t', s.sessionId]);
  });

  it('is woken by output, not by a timer (no fallback tick during the wait)', async () => {
    const s = await idleShell('agent-wait-no-tick');
    setTimeout(() => void sendKeys(s, `sleep 0.2; ${PROMPT}`, 'Enter'), 300);
    const out = await waitForState({
      reader: deps.reader,
      caller: { role: 'gateway', actor: 'gateway:test' },
      paneWatch,
      target: { name: 'agent-wait-no-tick' },
      states: ['WAITING_INPUT'],
      timeoutMs: 15_000,
      fallbackTickMs: 60_000, // never fires within the wait: only output can wake it
    });
    expect(out.matched).toBe(true);
    expect(out.status.status).toBe('WAITING_INPUT');
    expect(out.waitedMs).toBeLessThan(15_000);
    await server.tmux(['kill-session', '-t', s.sessionId]);
  });

  it('returns at once when the session already is in a wanted state', async () => {
    const s = await idleShell('agent-wait-now');
    const result = await gateway().wait.forState({ session: 'agent-wait-now', states: ['RUNNING', 'IDLE'] });
    expect(result).toMatchObject({ state: 'IDLE', states: ['RUNNING', 'IDLE'], resume_token: null });
    expect(paneWatch.watchedSessions()).toEqual([]); // decided before any watcher was needed
    // The wait read the pane: it is in the read audit.
    deps.input.reads.flush();
    const reads = deps.stores.db('audit').prepare("SELECT role, session_id FROM read_audit WHERE tool = 'terminal_wait_for_state' AND session_name = 'agent-wait-now'").all();
    expect(reads).toEqual([{ role: 'gateway', session_id: s.sessionId }]);
    await server.tmux(['kill-session', '-t', s.sessionId]);
  });

  it('answers PENDING with a resume token, and wait.resume continues until the state comes', async () => {
    const s = await idleShell('agent-wait-resume');
    const pending = await gateway().wait.forState({ session: 'agent-wait-resume', states: ['WAITING_INPUT'], timeout_s: 0.5 });
    expect(pending.state).toBe('PENDING');
    expect(pending.status.status).toBe('IDLE');
    expect(pending.resume_token).toMatch(/^rw_[A-Za-z0-9_-]{43}$/);
    expect(Date.parse(pending.resume_expires_at!)).toBeGreaterThan(Date.now());
    const token = pending.resume_token!;

    // Still not there: PENDING again, same token.
    const again = await gateway().wait.resume({ resume_token: token, timeout_s: 0 });
    expect(again).toMatchObject({ state: 'PENDING', resume_token: token, states: ['WAITING_INPUT'] });

    setTimeout(() => void sendKeys(s, PROMPT, 'Enter'), 300);
    const done: WaitResult = await gateway().wait.resume({ resume_token: token, timeout_s: 20 });
    expect(done).toMatchObject({ state: 'WAITING_INPUT', resume_token: null, session: 'agent-wait-resume' });
    // A finished wait retires its token.
    expect((await errorOf(gateway().wait.resume({ resume_token: token }))).code).toBe('RESUME_TOKEN_INVALID');
    await server.tmux(['kill-session', '-t', s.sessionId]);
  });

  it('refuses unknown, expired and other-role tokens alike with RESUME_TOKEN_INVALID', async () => {
    expect((await errorOf(gateway().wait.resume({ resume_token: 'rw_not-a-real-token' }))).code).toBe('RESUME_TOKEN_INVALID');

    const s = await idleShell('agent-wait-expiry');
    const pending = await gateway().wait.forState({ session: 'agent-wait-expiry', states: ['WAITING_INPUT'], timeout_s: 0 });
    // A token is only good for the client that got it.
    const otherClient = createCallerFactory(gatewayRouter)(createContextInner({ role: 'gateway', deps, actor: 'gateway:other' }));
    expect((await errorOf(otherClient.wait.resume({ resume_token: pending.resume_token! }))).code).toBe('RESUME_TOKEN_INVALID');

    const shortLived = { ...deps, live: { ...deps.live, resumeTokens: new ResumeTokens({ ttlMs: 50 }) } };
    const expiring = await gateway(undefined, shortLived).wait.forState({ session: 'agent-wait-expiry', states: ['WAITING_INPUT'], timeout_s: 0 });
    await new Promise((resolve) => setTimeout(resolve, 100));
    const expired = await errorOf(gateway(undefined, shortLived).wait.resume({ resume_token: expiring.resume_token! }));
    expect(expired.code).toBe('RESUME_TOKEN_INVALID');
    await server.tmux(['kill-session', '-t', s.sessionId]);
  });

  it('refuses a denied session with SESSION_NOT_ALLOWED and nothing of its content', async () => {
    const s = await server.newSession('private-wait', 'bash --norc --noprofile');
    await sendKeys(s, 'echo private-marker', 'Enter');
    const refused = await errorOf(gateway().wait.forState({ session: 'private-wait', states: ['IDLE'], timeout_s: 1 }));
    expect(refused.code).toBe('SESSION_NOT_ALLOWED');
    expect(refused.message).not.toContain('private-marker');
    expect(refused.message).not.toContain('IDLE');
    expect(paneWatch.watchedSessions()).toEqual([]);
    await server.tmux(['kill-session', '-t', s.sessionId]);
  });

  it('refuses to resume into a session recreated under the same name', async () => {
    const s = await idleShell('agent-wait-reborn');
    const pending = await gateway().wait.forState({ session: 'agent-wait-reborn', states: ['WAITING_INPUT'], timeout_s: 0 });
    await server.tmux(['kill-session', '-t', s.sessionId]);
    const reborn = await idleShell('agent-wait-reborn');
    expect((await errorOf(gateway().wait.resume({ resume_token: pending.resume_token! }))).code).toBe('IDENTITY_CHANGED');
    await server.tmux(['kill-session', '-t', reborn.sessionId]);
  });

  it('stops waiting and detaches when the caller aborts', async () => {
    const s = await idleShell('agent-wait-abort');
    const controller = new AbortController();
    const waiting = gateway(controller.signal).wait.forState({ session: 'agent-wait-abort', states: ['WAITING_INPUT'], timeout_s: 20 });
    await vi.waitFor(async () => expect(await watcherClients()).toHaveLength(1), { timeout: 60_000, interval: 20 });
    const abortedAt = Date.now();
    controller.abort();
    expect((await errorOf(waiting)).code).toBeDefined();
    // Ended by the abort, not by the 20 s timeout: the bound is that, not a speed claim.
    expect(Date.now() - abortedAt).toBeLessThan(15_000);
    await vi.waitFor(async () => expect(await watcherClients()).toEqual([]), { timeout: 60_000, interval: 50 });
    await server.tmux(['kill-session', '-t', s.sessionId]);
  });

  it('stops waiting when an HTTP client disconnects from the role socket', async () => {
    const s = await idleShell('agent-wait-http');
    ensureSocketDir(join(root, 'run'));
    const servers = await serveRoles(deps, join(root, 'run'));
    try {
      const client = createBrokerClient({ role: 'gateway', socketPath: servers.sockets.gateway });
      // Over the real socket it works like the caller...
      const now = await client.wait.forState.query({ session: 'agent-wait-http', states: ['IDLE'] });
      expect(now.state).toBe('IDLE');
      // ...and a client that goes away mid-wait leaves nothing behind.
      const controller = new AbortController();
      const waiting = client.wait.forState.query({ session: 'agent-wait-http', states: ['WAITING_INPUT'], timeout_s: 20 }, { signal: controller.signal });
      await vi.waitFor(async () => expect(await watcherClients()).toHaveLength(1), { timeout: 60_000, interval: 20 });
      controller.abort();
      await expect(waiting).rejects.toBeDefined();
      await vi.waitFor(async () => expect(await watcherClients()).toEqual([]), { timeout: 60_000, interval: 50 });
    } finally {
      await servers.close();
    }
    await server.tmux(['kill-session', '-t', s.sessionId]);
  });
});
