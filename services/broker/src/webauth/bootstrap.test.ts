// Guards the first-start account: created once with a 0600 never-through-a-symlink password file, which must be changed and whose change ends the old sessions and deletes the file.
import { lstatSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, rmSync, statSync, symlinkSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore, type SqliteDatabase } from '../effects/store/database.js';
import { webauthStore, webauthStoreDefinition } from '../effects/store/webauth-store.js';
import { BOOTSTRAP_FILE_NAME } from '../effects/webauth-bootstrap-file.js';
import { ensureBootstrapAccount } from './bootstrap.js';
import { changePassword } from './change-password.js';
import { webauthEnv, type WebauthEnv } from './env.js';
import { login } from './login.js';
import { validateSessionToken } from './sessions.js';

let root: string;
let stateDir: string;
let db: SqliteDatabase;
let env: WebauthEnv;
let logLines: string[];
let clock: number;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'tmcp-webauth-boot-'));
  stateDir = join(root, 'state');
  db = openStore(stateDir, webauthStoreDefinition);
  logLines = [];
  clock = Date.UTC(2030, 0, 1);
  const log = pino({ level: 'info' }, { write: (s: string) => void logLines.push(s) });
  env = webauthEnv({ store: webauthStore(db), stateDir, log, now: () => clock });
});
afterEach(() => {
  db.close();
  rmSync(root, { recursive: true, force: true });
});

const secretPath = () => join(stateDir, BOOTSTRAP_FILE_NAME);
const bootstrapPassword = () => /^password: (\S+)$/m.exec(readFileSync(secretPath(), 'utf8'))![1]!;

describe('ensureBootstrapAccount', () => {
  it('creates admin with must-change-password and a 0600 password file, exactly once', async () => {
    expect(await ensureBootstrapAccount(env)).toBe('created');
    expect(statSync(secretPath()).mode & 0o777).toBe(0o600);
    const password = bootstrapPassword();
    expect(password).toMatch(/^[a-z2-7]{24}$/);
    expect(env.store.listUsers(clock)).toMatchObject([{ username: 'admin', mustChangePassword: true }]);
    expect(logLines.join('')).toContain('webauth.bootstrap_created');
    expect(logLines.join('')).not.toContain(password);

    const before = readFileSync(secretPath(), 'utf8');
    expect(await ensureBootstrapAccount(env)).toBe('accounts-exist');
    expect(readFileSync(secretPath(), 'utf8')).toBe(before);
    expect(env.store.countUsers()).toBe(1);
  });

  it('does not write through a symlink planted at the file path, and creates no account', async () => {
    const elsewhere = join(root, 'elsewhere');
    mkdirSync(elsewhere);
    const target = join(elsewhere, 'stolen.txt');
    symlinkSync(target, secretPath()); // dangling: O_CREAT alone would create the target
    expect(await ensureBootstrapAccount(env)).toBe('refused');
    expect(existsSync(target)).toBe(false);
    expect(lstatSync(secretPath()).isSymbolicLink()).toBe(true);
    expect(readlinkSync(secretPath())).toBe(target);
    expect(env.store.countUsers()).toBe(0);
    expect(logLines.join('')).toContain('webauth.bootstrap_refused');

    writeFileSync(target, 'precious');
    expect(await ensureBootstrapAccount(env)).toBe('refused');
    expect(readFileSync(target, 'utf8')).toBe('precious');
  });
});

describe('first sign-in with the bootstrap password', () => {
  it('reports mustChangePassword; changing it deletes the file, issues a new session and ends the old one', async () => {
    await ensureBootstrapAccount(env);
    const initial = bootstrapPassword();
    const first = await login(env, { username: 'admin', password: initial, sourceIp: '192.0.2.1' });
    if (!first.ok) throw new Error(`login refused: ${first.message}`);
    expect(first.mustChangePassword).toBe(true);
    expect(validateSessionToken(env, first.token)?.user.mustChangePassword).toBe(true);

    const weak = await changePassword(env, { token: first.token, currentPassword: initial, newPassword: 'admin-is-me-2030', sourceIp: '192.0.2.1' });
    expect(weak).toEqual({ ok: false, code: 'INVALID_ARGUMENT', message: 'the password must not contain the user name' });
    const wrong = await changePassword(env, { token: first.token, currentPassword: 'not-the-password', newPassword: 'a fresh long secret', sourceIp: '192.0.2.1' });
    expect(wrong).toMatchObject({ ok: false, code: 'FORBIDDEN' });
    clock += 2_000; // past the 1 s per-IP wait that failure earned

    const changed = await changePassword(env, { token: first.token, currentPassword: initial, newPassword: 'a fresh long secret', sourceIp: '192.0.2.1' });
    if (!changed.ok) throw new Error(`change refused: ${changed.message}`);
    expect(changed.token).not.toBe(first.token);
    expect(changed.mustChangePassword).toBe(false);
    expect(existsSync(secretPath())).toBe(false);
    expect(validateSessionToken(env, first.token)).toBeNull();
    expect(validateSessionToken(env, changed.token)?.user).toMatchObject({ username: 'admin', mustChangePassword: false });

    expect(await login(env, { username: 'admin', password: initial, sourceIp: '192.0.2.2' })).toMatchObject({ ok: false, code: 'UNAUTHENTICATED' });
    expect(await login(env, { username: 'admin', password: 'a fresh long secret', sourceIp: '192.0.2.3' })).toMatchObject({ ok: true, mustChangePassword: false });
    const logs = logLines.join('');
    expect(logs).toContain('webauth.password_changed');
    for (const secret of [initial, 'a fresh long secret', first.token, changed.token]) expect(logs).not.toContain(secret);
  });
});
