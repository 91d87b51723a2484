// Guards login sessions: random base32 tokens stored only as their SHA-256, a 12-hour absolute lifetime, and ending one or all of a user's sessions.
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore, type SqliteDatabase } from '../effects/store/database.js';
import { webauthStore, webauthStoreDefinition } from '../effects/store/webauth-store.js';
import { webauthEnv, type WebauthEnv } from './env.js';
import { createSession, invalidateSessionToken, invalidateUserSessions, SESSION_LIFETIME_MS, validateSessionToken } from './sessions.js';

let root: string;
let db: SqliteDatabase;
let env: WebauthEnv;
let clock: number;
let userId: number;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'tmcp-webauth-sess-'));
  db = openStore(root, webauthStoreDefinition);
  clock = Date.UTC(2030, 0, 1);
  env = webauthEnv({ store: webauthStore(db), stateDir: root, log: pino({ level: 'silent' }), now: () => clock });
  // Sessions never look at the hash, so no argon2 is needed here.
  userId = env.store.createUser({ username: 'alice', passwordHash: 'unused', mustChangePassword: false, now: clock })!.id;
});
afterEach(() => {
  db.close();
  rmSync(root, { recursive: true, force: true });
});

describe('session tokens', () => {
  it('are 20 random bytes in base32 and stored only as hex SHA-256', () => {
    const { token, session } = createSession(env, userId);
    expect(token).toMatch(/^[a-z2-7]{32}$/);
    expect(createSession(env, userId).token).not.toBe(token);
    expect(session.id).toBe(createHash('sha256').update(token).digest('hex'));
    const rows = db.prepare('SELECT id FROM sessions').all() as { id: string }[];
    expect(rows.map((r) => r.id)).toContain(session.id);
    expect(JSON.stringify(db.prepare('SELECT * FROM sessions').all())).not.toContain(token);
  });

  it('validate to the user, and to null for unknown or malformed tokens', () => {
    const { token } = createSession(env, userId);
    expect(validateSessionToken(env, token)?.user).toMatchObject({ id: userId, username: 'alice' });
    expect(validateSessionToken(env, 'a'.repeat(32))).toBeNull();
    expect(validateSessionToken(env, token.toUpperCase())).toBeNull();
    expect(validateSessionToken(env, `${token} `)).toBeNull();
  });
});

describe('session lifetime', () => {
  it('ends 12 hours after creation however often it is used', () => {
    const { token, session } = createSession(env, userId);
    expect(session.expiresAt - session.createdAt).toBe(SESSION_LIFETIME_MS);
    for (let h = 1; h < 12; h++) {
      clock = session.createdAt + h * 3_600_000;
      expect(validateSessionToken(env, token)?.session.expiresAt).toBe(session.expiresAt);
    }
    clock = session.expiresAt - 1;
    expect(validateSessionToken(env, token)).not.toBeNull();
    clock = session.expiresAt;
    expect(validateSessionToken(env, token)).toBeNull();
    expect(db.prepare('SELECT count(*) AS n FROM sessions').get()).toEqual({ n: 0 });
  });
});

describe('ending sessions', () => {
  it('ends one, or all of a user\'s sessions except one, leaving other users alone', () => {
    const bob = env.store.createUser({ username: 'bob', passwordHash: 'unused', mustChangePassword: false, now: clock })!.id;
    const [a, b, c] = [createSession(env, userId), createSession(env, userId), createSession(env, userId)];
    const other = createSession(env, bob);
    invalidateSessionToken(env, a.token);
    expect(validateSessionToken(env, a.token)).toBeNull();
    expect(validateSessionToken(env, b.token)).not.toBeNull();

    expect(invalidateUserSessions(env, userId, c.session.id)).toBe(1);
    expect(validateSessionToken(env, b.token)).toBeNull();
    expect(validateSessionToken(env, c.token)).not.toBeNull();
    expect(invalidateUserSessions(env, userId)).toBe(1);
    expect(validateSessionToken(env, c.token)).toBeNull();
    expect(validateSessionToken(env, other.token)?.user.username).toBe('bob');
  });
});
