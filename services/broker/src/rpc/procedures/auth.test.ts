// Guards the sign-in procedures: web.sock can log in, validate, change the password and log out; observer.sock can only verify credentials; refusals carry our codes (RATE_LIMITED with retryAfterSeconds on the wire).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readAppErrorData } from '@terminal-mcp/contract';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG } from '../../config/schema.js';
import type { BrokerDeps } from '../deps.js';
import { ensureSocketDir } from '../../effects/socket-files.js';
import type { TmuxAdapter } from '../../effects/tmux/types.js';
import { BOOTSTRAP_FILE_NAME } from '../../effects/webauth-bootstrap-file.js';
import { ensureBootstrapAccount } from '../../webauth/bootstrap.js';
import { createContextInner } from '../context.js';
import { observerRouter } from '../roles/observer.js';
import { webRouter } from '../roles/web.js';
import { serveRoles } from '../serve.js';
import { createCallerFactory } from '../trpc.js';
import { testDeps } from '../../testing/deps.testkit.js';

/** Sign-in never touches tmux; any call would be a bug. */
const noTmux: TmuxAdapter = {
  listSessions: () => Promise.reject(new Error('tmux must not be used by auth')),
  listSummaries: () => Promise.reject(new Error('tmux must not be used by auth')),
  findSession: () => Promise.reject(new Error('tmux must not be used by auth')),
  paneFacts: () => Promise.reject(new Error('tmux must not be used by auth')),
  listPanes: () => Promise.reject(new Error('tmux must not be used by auth')),
  capturePane: () => Promise.reject(new Error('tmux must not be used by auth')),
  health: () => Promise.reject(new Error('tmux must not be used by auth')),
  noServer: () => {
    throw new Error('tmux must not be used by auth');
  },
  onSessionsChanged: () => () => {},
  close: () => Promise.resolve(),
};

let root: string;
let deps: BrokerDeps;
let adminPassword: string;

beforeEach(async () => {
  root = mkdtempSync(join(tmpdir(), 'tmcp-auth-proc-'));
  const stateDir = join(root, 'state');
  const log = pino({ level: 'silent' });
  deps = testDeps({ config: DEFAULT_CONFIG, tmux: noTmux, stateDir: stateDir, log, info: { version: 'test', startedAt: new Date(), tmuxSocket: null } });
  await ensureBootstrapAccount(deps.webauth);
  adminPassword = /^password: (\S+)$/m.exec(readFileSync(join(stateDir, BOOTSTRAP_FILE_NAME), 'utf8'))![1]!;
});
afterEach(() => {
  deps.stores.close();
  rmSync(root, { recursive: true, force: true });
});

const web = () => createCallerFactory(webRouter)(createContextInner({ role: 'web', deps }));

/** Stops the sign-in throttle's clock: the first wrong password holds the source back for
 * 1 s, and on a busy machine more than 1 s can pass before the next sign-in (each one
 * hashes a password), which would then be let through. */
function stopThrottleClock(): void {
  const at = Date.now();
  deps.webauth.now = () => at;
}

async function codeOf(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (err) {
    return readAppErrorData((err as { cause?: unknown }).cause) ?? { trpc: (err as { code?: string }).code };
  }
  throw new Error('expected a refusal');
}

describe('web role: auth.*', { timeout: 180_000 }, () => {
  it('logs in, validates, changes the password (new session, old one ended) and logs out', async () => {
    const session = await web().auth.login({ username: 'admin', password: adminPassword, sourceIp: '127.0.0.1' });
    expect(session).toMatchObject({ mustChangePassword: true, user: { username: 'admin', mustChangePassword: true } });
    expect(Date.parse(session.expiresAt) - Date.now()).toBeGreaterThan(11.9 * 3_600_000);
    expect(await web().auth.validateSession({ token: session.token })).toEqual({ user: session.user, expiresAt: session.expiresAt });

    expect(await codeOf(web().auth.changePassword({ token: session.token, currentPassword: adminPassword, newPassword: 'short', sourceIp: '127.0.0.1' }))).toMatchObject({ code: 'INVALID_ARGUMENT' });
    const changed = await web().auth.changePassword({ token: session.token, currentPassword: adminPassword, newPassword: 'long enough passphrase', sourceIp: '127.0.0.1' });
    expect(changed.user.mustChangePassword).toBe(false);
    expect(await web().auth.validateSession({ token: session.token })).toBeNull();
    expect(await web().auth.validateSession({ token: changed.token })).toMatchObject({ user: { username: 'admin', mustChangePassword: false } });

    expect(await web().auth.logout({ token: changed.token })).toEqual({ ok: true });
    expect(await web().auth.validateSession({ token: changed.token })).toBeNull();
    expect(await web().auth.logout({ token: 'not-a-token' })).toEqual({ ok: true });
  });

  it('refuses bad credentials, bad sessions and oversized or odd input with our codes', async () => {
    stopThrottleClock();
    expect(await codeOf(web().auth.login({ username: 'admin', password: 'wrong password', sourceIp: '127.0.0.1' }))).toMatchObject({ code: 'UNAUTHENTICATED' });
    expect(await codeOf(web().auth.login({ username: 'admin', password: adminPassword, sourceIp: '127.0.0.1' }))).toMatchObject({ code: 'RATE_LIMITED', retryAfterSeconds: 1 });
    expect(await codeOf(web().auth.changePassword({ token: 'a'.repeat(32), currentPassword: 'x', newPassword: 'long enough passphrase', sourceIp: '127.0.0.2' }))).toMatchObject({ code: 'UNAUTHENTICATED' });
    expect(await web().auth.validateSession({ token: 'garbage' })).toBeNull();
    expect(await codeOf(web().auth.login({ username: 'x'.repeat(65), password: 'p', sourceIp: '127.0.0.1' }))).toEqual({ trpc: 'BAD_REQUEST' });
    expect(await codeOf(web().auth.login({ username: 'admin', password: 'p', sourceIp: '1.2.3.4 evil' }))).toEqual({ trpc: 'BAD_REQUEST' });
    expect(await codeOf(web().auth.validateSession({ token: 't'.repeat(129) }))).toEqual({ trpc: 'BAD_REQUEST' });
  });
});

describe('lockout attack (issue 24, finding 7)', { timeout: 120_000 }, () => {
  it("one operator's wrong passwords from other clients never lock the owner out of their account", async () => {
    // The attack: another operator sends a wrong password for admin from ten loopback
    // sources (127.0.0.2-11), one each, so no per-source backoff slows them: done in seconds.
    for (let i = 2; i <= 11; i++) {
      expect(await codeOf(web().auth.login({ username: 'admin', password: `guess ${i}`, sourceIp: `127.0.0.${i}` }))).toMatchObject({ code: 'UNAUTHENTICATED' });
    }
    // The owner, signing in from their own client, is not held back.
    const owner = await web().auth.login({ username: 'admin', password: adminPassword, sourceIp: '127.0.0.1' });
    expect(owner.user.username).toBe('admin');
  });
});

describe('observer role', () => {
  it('can name no account procedure: the OAuth approval checks the password itself', () => {
    expect('auth' in observerRouter._def.record).toBe(false);
    expect(Object.keys(observerRouter._def.procedures).filter((p) => /login|password|session/i.test(p) && p.startsWith('oauth.') && !p.startsWith('oauth.approve'))).toEqual([]);
  });
});

describe('over the web socket', { timeout: 180_000 }, () => {
  it('sends RATE_LIMITED with retryAfterSeconds and HTTP 429 in the error data', async () => {
    const socketDir = join(root, 'run');
    ensureSocketDir(socketDir);
    const servers = await serveRoles(deps, socketDir);
    try {
      const post = (path: string, body: unknown) =>
        new Promise<{ status: number; json: { error?: { message: string; data: { httpStatus: number; app: Record<string, unknown> } } } }>((resolve, reject) => {
          const req = request({ socketPath: servers.sockets.web, path: `/${path}`, method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
            let text = '';
            res.setEncoding('utf8');
            res.on('data', (c: string) => (text += c));
            res.on('end', () => resolve({ status: res.statusCode!, json: JSON.parse(text) }));
          });
          req.on('error', reject);
          req.end(JSON.stringify(body));
        });
      stopThrottleClock();
      const attempt = { username: 'ghost', password: 'wrong password', sourceIp: '192.0.2.99' };
      expect((await post('auth.login', attempt)).json.error?.data.app).toMatchObject({ code: 'UNAUTHENTICATED' });
      const held = await post('auth.login', attempt);
      expect(held.status).toBe(429);
      expect(held.json.error?.data.httpStatus).toBe(429);
      expect(held.json.error?.data.app).toEqual({ code: 'RATE_LIMITED', hint: expect.any(String), retryAfterSeconds: 1 });
      expect(held.json.error?.message).toBe('too many failed sign-in attempts: retry in 1 s');
    } finally {
      await servers.close();
    }
  });
});
