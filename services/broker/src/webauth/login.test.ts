// Guards login: an unknown name and a wrong password are indistinguishable, failures back off per IP, and 10 failures from one source lock a name (real or not) for 15 minutes from that source only.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore, type SqliteDatabase } from '../effects/store/database.js';
import { webauthStore, webauthStoreDefinition } from '../effects/store/webauth-store.js';
import { createAccount, setAccountPassword } from './accounts.js';
import { webauthEnv, type WebauthEnv } from './env.js';
import { login, verifyCredentials, type LoginAttempt } from './login.js';

const PASSWORD = 'correct battery staple';
let root: string;
let db: SqliteDatabase;
let env: WebauthEnv;
let clock: number;
let logLines: string[];

beforeEach(async () => {
  root = mkdtempSync(join(tmpdir(), 'tmcp-webauth-login-'));
  db = openStore(root, webauthStoreDefinition);
  clock = Date.UTC(2030, 0, 1);
  logLines = [];
  env = webauthEnv({ store: webauthStore(db), stateDir: root, log: pino({ level: 'info' }, { write: (s: string) => void logLines.push(s) }), now: () => clock });
  const created = await createAccount(env, 'alice', PASSWORD);
  if (!created.ok) throw new Error(created.message);
  await env.dummyHash();
});
afterEach(() => {
  db.close();
  rmSync(root, { recursive: true, force: true });
});

const attempt = (username: string, password: string, sourceIp: string): Promise<unknown> => login(env, { username, password, sourceIp } satisfies LoginAttempt);

// Real argon2 verifies (10+ per test): allow for a loaded machine.
describe('login answers', { timeout: 180_000 }, () => {
  it('gives an unknown user and a wrong password the same answer and the same work: one argon2 verify with the same parameters', async () => {
    // Cost is judged by what runs, not by the clock (a loaded machine made a timing
    // comparison fail: run g38a1, load 10): an unknown name is verified against a real
    // hash made with the real parameters, once per attempt, and a known name never is.
    let dummyUses = 0;
    const dummyHash = env.dummyHash;
    const counted: WebauthEnv = { ...env, dummyHash: () => (dummyUses++, dummyHash()) };
    const stored = env.store.findUserByName('alice')!.passwordHash;
    const parameters = (hash: string) => hash.split('$').slice(1, 4).join('$');
    expect(parameters(stored)).toMatch(/^argon2id\$v=19\$m=\d+,t=\d+,p=\d+$/);
    expect(parameters(await dummyHash())).toBe(parameters(stored));
    for (let i = 0; i < 4; i++) {
      const before = dummyUses;
      const u = await login(counted, { username: 'mallory', password: PASSWORD, sourceIp: `198.51.100.${i}` });
      expect(dummyUses).toBe(before + 1);
      const w = await login(counted, { username: 'alice', password: 'wrong battery staple', sourceIp: `203.0.113.${i}` });
      expect(dummyUses).toBe(before + 1);
      expect(u).toEqual(w);
      expect(u).toEqual({ ok: false, code: 'UNAUTHENTICATED', message: 'invalid user name or password' });
    }
  });

  it('signs in with the right password and logs events without secrets', async () => {
    const ok = await login(env, { username: 'alice', password: PASSWORD, sourceIp: '192.0.2.10' });
    expect(ok).toMatchObject({ ok: true, mustChangePassword: false, user: { username: 'alice' } });
    await attempt('mallory', 'typed-into-name-field', '192.0.2.11');
    const logs = logLines.join('');
    expect(logs).toContain('webauth.login_succeeded');
    expect(logs).toContain('webauth.login_failed');
    expect(logs).not.toContain(PASSWORD);
    expect(logs).not.toContain('mallory'); // unknown names are not logged: they are often passwords
    if (ok && typeof ok === 'object' && 'token' in ok) expect(logs).not.toContain(ok.token);
  });
});

describe('per-IP backoff', { timeout: 180_000 }, () => {
  it('doubles the wait after each failure from one IP, up to 15 minutes, and leaves other IPs alone', async () => {
    const ip = '198.51.100.7';
    const expected = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 900, 900];
    for (const [i, wait] of expected.entries()) {
      // A different name each time, so only the IP scope is exercised here.
      expect(await attempt(`user${i}`, 'nope', ip)).toMatchObject({ code: 'UNAUTHENTICATED' });
      expect(await attempt(`user${i}`, 'nope', ip)).toEqual({
        ok: false,
        code: 'RATE_LIMITED',
        retryAfterSeconds: wait,
        message: `too many failed sign-in attempts: retry in ${wait} s`,
      });
      // Even the right password is held back while waiting, without being checked.
      expect(await attempt('alice', PASSWORD, ip)).toMatchObject({ code: 'RATE_LIMITED' });
      clock += (wait - 1) * 1000;
      expect(await attempt('alice', PASSWORD, ip)).toMatchObject({ code: 'RATE_LIMITED', retryAfterSeconds: 1 });
      clock += 1000;
    }
    expect(await attempt('alice', PASSWORD, '198.51.100.8')).toMatchObject({ ok: true });
    // Success from the IP clears its record: the next typo waits 1 s again.
    expect(await attempt('alice', PASSWORD, ip)).toMatchObject({ ok: true });
    await attempt('alice', 'typo', ip);
    expect(await attempt('alice', PASSWORD, ip)).toMatchObject({ code: 'RATE_LIMITED', retryAfterSeconds: 1 });
  });
});

describe('channels', { timeout: 180_000 }, () => {
  it('failures on the internet-facing OAuth consent page never lock the loopback dashboard', async () => {
    // Behind a tunnel every consent-page request may come from 127.0.0.1, like the operator.
    for (let i = 0; i < 12; i++) {
      await verifyCredentials(env, { username: 'alice', password: `guess ${i}`, sourceIp: '127.0.0.1' }, 'oauth');
      clock += 1_000;
    }
    expect(await verifyCredentials(env, { username: 'alice', password: PASSWORD, sourceIp: '127.0.0.1' }, 'oauth')).toMatchObject({ code: 'RATE_LIMITED' });
    expect(await attempt('alice', PASSWORD, '127.0.0.1')).toMatchObject({ ok: true });
  });
});

describe('per-source account lock', { timeout: 180_000 }, () => {
  it.each(['alice', 'ghost'])('locks the name %s for 15 minutes from the one source that failed 10 times, never for other sources', async (name) => {
    const source = '10.0.0.1';
    const results: unknown[] = [];
    for (let i = 0; i < 10; i++) {
      results.push(await attempt(name, `wrong password ${i}`, source));
      clock += 2 ** i * 1000; // wait out the per-IP backoff: 1, 2, 4, ... 512 s
    }
    expect(new Set(results.map((r) => JSON.stringify(r)))).toEqual(new Set([JSON.stringify({ ok: false, code: 'UNAUTHENTICATED', message: 'invalid user name or password' })]));
    // The per-IP wait (512 s) is over; the name stays locked from this source until 15
    // minutes after the 10th failure, 512 s ago.
    expect(await attempt(name, PASSWORD, source)).toMatchObject({ ok: false, code: 'RATE_LIMITED', retryAfterSeconds: 900 - 512 });
    expect(await attempt('someone-else', 'whatever', source)).toMatchObject({ code: 'UNAUTHENTICATED' });
    // Another source is not held back for that name.
    expect(await attempt(name, PASSWORD, '10.0.1.1')).toMatchObject(name === 'alice' ? { ok: true } : { code: 'UNAUTHENTICATED' });
    clock += 900_000; // past the lock and the per-IP wait the 11th failure ('someone-else') set
    const after = await attempt(name, PASSWORD, source);
    expect(after).toMatchObject(name === 'alice' ? { ok: true } : { code: 'UNAUTHENTICATED' });
  });

  it('a password set from the command line lifts the lock from every source', async () => {
    for (const source of ['10.0.2.1', '10.0.2.2']) {
      for (let i = 0; i < 10; i++) {
        await attempt('alice', `wrong ${i}`, source);
        clock += 2 ** i * 1000;
      }
      expect(await attempt('alice', PASSWORD, source)).toMatchObject({ code: 'RATE_LIMITED' });
    }
    const reset = await setAccountPassword(env, 'alice', 'another battery staple');
    expect(reset).toMatchObject({ ok: true });
    for (const source of ['10.0.2.1', '10.0.2.2']) expect(await attempt('alice', 'another battery staple', source)).toMatchObject({ ok: true });
  });
});
