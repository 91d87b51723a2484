/**
 * webauth.db: operator accounts, login sessions and login-throttling state, shared by the
 * dashboard and the observer's OAuth login page (and the `terminal-mcp-webauth` CLI, which
 * may open it while the broker runs: WAL plus busy_timeout serialise the writers).
 *
 * Times are integer milliseconds since the epoch. Sessions are stored by the hex SHA-256
 * of their token, never the token. Every multi-row write runs in one transaction (single
 * statements are their own).
 */
import type { SqliteDatabase, StoreDefinition } from './database.js';
import type { ThrottleState } from '../../policy/login-throttle.js';

export const webauthStoreDefinition: StoreDefinition = {
  name: 'webauth',
  migrations: [
    (db) => {
      // IF NOT EXISTS: the broker and the CLI may both open a fresh file at once.
      db.exec(`CREATE TABLE IF NOT EXISTS users (
        id INTEGER PRIMARY KEY,
        username TEXT NOT NULL UNIQUE CHECK (length(username) BETWEEN 1 AND 32),
        password_hash TEXT NOT NULL,
        must_change_password INTEGER NOT NULL CHECK (must_change_password IN (0, 1)),
        created_at INTEGER NOT NULL,
        password_changed_at INTEGER NOT NULL
      ) STRICT`);
      db.exec(`CREATE TABLE IF NOT EXISTS sessions (
        id TEXT PRIMARY KEY,
        user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL
      ) STRICT`);
      db.exec('CREATE INDEX IF NOT EXISTS sessions_by_user ON sessions(user_id)');
      db.exec(`CREATE TABLE IF NOT EXISTS login_throttle (
        scope TEXT NOT NULL CHECK (scope IN ('ip', 'account')),
        key TEXT NOT NULL,
        failures INTEGER NOT NULL,
        window_started_at INTEGER NOT NULL,
        last_failure_at INTEGER NOT NULL,
        next_allowed_at INTEGER NOT NULL,
        PRIMARY KEY (scope, key)
      ) STRICT`);
    },
  ],
};

export interface UserRecord {
  id: number;
  username: string;
  passwordHash: string;
  mustChangePassword: boolean;
  createdAt: number;
  passwordChangedAt: number;
}

export interface SessionRecord {
  id: string;
  userId: number;
  createdAt: number;
  expiresAt: number;
}

export type ThrottleScope = 'ip' | 'account';

export type { ThrottleState };

export interface ThrottleKey {
  scope: ThrottleScope;
  key: string;
}

interface UserRow {
  id: number;
  username: string;
  password_hash: string;
  must_change_password: number;
  created_at: number;
  password_changed_at: number;
}

interface SessionRow {
  id: string;
  user_id: number;
  created_at: number;
  expires_at: number;
}

interface ThrottleRow {
  failures: number;
  window_started_at: number;
  last_failure_at: number;
  next_allowed_at: number;
}

const toUser = (r: UserRow): UserRecord => ({
  id: r.id,
  username: r.username,
  passwordHash: r.password_hash,
  mustChangePassword: r.must_change_password === 1,
  createdAt: r.created_at,
  passwordChangedAt: r.password_changed_at,
});

const toSession = (r: SessionRow): SessionRecord => ({ id: r.id, userId: r.user_id, createdAt: r.created_at, expiresAt: r.expires_at });

export interface WebauthStore {
  countUsers(): number;
  /** Every user with the number of sessions still valid at `now`. */
  listUsers(now: number): (UserRecord & { activeSessions: number })[];
  findUserByName(username: string): UserRecord | undefined;
  findUserById(id: number): UserRecord | undefined;
  /** Inserts the user; undefined when the name is taken. */
  createUser(user: { username: string; passwordHash: string; mustChangePassword: boolean; now: number }): UserRecord | undefined;
  /** Inserts the user only if there is no user at all (first-start bootstrap). */
  createFirstUser(user: { username: string; passwordHash: string; mustChangePassword: boolean; now: number }): UserRecord | undefined;
  /** Sets the password and, in the same transaction, ends every session of the user and
   * (optionally) opens the one new session. With `requireSessionId`, does nothing unless
   * that session still exists (it may have been ended while the new hash was computed). */
  replacePassword(change: {
    userId: number;
    passwordHash: string;
    mustChangePassword: boolean;
    now: number;
    requireSessionId?: string;
    newSession?: SessionRecord;
  }): { applied: boolean; endedSessions: number };
  insertSession(session: SessionRecord): void;
  findSessionWithUser(sessionId: string): { session: SessionRecord; user: UserRecord } | undefined;
  deleteSession(sessionId: string): void;
  /** Returns how many sessions ended. */
  deleteUserSessions(userId: number, exceptSessionId?: string): number;
  deleteExpiredSessions(now: number): number;
  /**
   * Reads the throttle states of `keys`, lets `decide` compute new ones from them, and
   * writes those — all in one transaction, so concurrent attempts (another request, the
   * CLI) cannot both pass a check that only one of them should.
   */
  updateThrottle<T>(
    keys: readonly ThrottleKey[],
    decide: (states: (ThrottleState | undefined)[]) => { result: T; next?: (ThrottleState | null)[] },
  ): T;
  clearThrottle(keys: readonly ThrottleKey[]): void;
  /** Drops every account-scope row whose key starts with one of `prefixes` (one account,
   * every source). */
  clearAccountThrottle(prefixes: readonly string[]): void;
  /** Drops throttle rows that no longer hold anything back and are too old to count. */
  pruneThrottle(olderThan: number, now: number): void;
}

/** The store's operations over an open webauth.db (statements prepared once; built once per broker by store-set.ts). */
export function webauthStore(db: SqliteDatabase): WebauthStore {
  const userColumns = 'id, username, password_hash, must_change_password, created_at, password_changed_at';
  const q = {
    countUsers: db.prepare<[], { n: number }>('SELECT count(*) AS n FROM users'),
    listUsers: db.prepare<[number], UserRow & { active_sessions: number }>(
      `SELECT ${userColumns.split(', ').map((c) => `u.${c}`).join(', ')},
        (SELECT count(*) FROM sessions s WHERE s.user_id = u.id AND s.expires_at > ?) AS active_sessions
       FROM users u ORDER BY u.username`,
    ),
    userByName: db.prepare<[string], UserRow>(`SELECT ${userColumns} FROM users WHERE username = ?`),
    userById: db.prepare<[number], UserRow>(`SELECT ${userColumns} FROM users WHERE id = ?`),
    insertUser: db.prepare<[string, string, number, number, number], UserRow>(
      `INSERT INTO users (username, password_hash, must_change_password, created_at, password_changed_at)
       VALUES (?, ?, ?, ?, ?) ON CONFLICT (username) DO NOTHING RETURNING ${userColumns}`,
    ),
    updatePassword: db.prepare<[string, number, number, number]>(
      'UPDATE users SET password_hash = ?, must_change_password = ?, password_changed_at = ? WHERE id = ?',
    ),
    insertSession: db.prepare<[string, number, number, number]>('INSERT INTO sessions (id, user_id, created_at, expires_at) VALUES (?, ?, ?, ?)'),
    sessionById: db.prepare<[string], SessionRow>('SELECT id, user_id, created_at, expires_at FROM sessions WHERE id = ?'),
    deleteSession: db.prepare<[string]>('DELETE FROM sessions WHERE id = ?'),
    deleteUserSessions: db.prepare<[number, string]>('DELETE FROM sessions WHERE user_id = ? AND id <> ?'),
    deleteExpired: db.prepare<[number]>('DELETE FROM sessions WHERE expires_at <= ?'),
    throttleRow: db.prepare<[string, string], ThrottleRow>(
      'SELECT failures, window_started_at, last_failure_at, next_allowed_at FROM login_throttle WHERE scope = ? AND key = ?',
    ),
    upsertThrottle: db.prepare<[string, string, number, number, number, number]>(
      `INSERT INTO login_throttle (scope, key, failures, window_started_at, last_failure_at, next_allowed_at)
       VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (scope, key) DO UPDATE SET failures = excluded.failures, window_started_at = excluded.window_started_at,
         last_failure_at = excluded.last_failure_at, next_allowed_at = excluded.next_allowed_at`,
    ),
    deleteThrottle: db.prepare<[string, string]>('DELETE FROM login_throttle WHERE scope = ? AND key = ?'),
    deleteAccountThrottle: db.prepare<[string, string]>("DELETE FROM login_throttle WHERE scope = 'account' AND substr(key, 1, length(?)) = ?"),
    pruneThrottle: db.prepare<[number, number]>('DELETE FROM login_throttle WHERE last_failure_at < ? AND next_allowed_at <= ?'),
  };

  const insertUser = (u: { username: string; passwordHash: string; mustChangePassword: boolean; now: number }) => {
    const row = q.insertUser.get(u.username, u.passwordHash, u.mustChangePassword ? 1 : 0, u.now, u.now);
    return row ? toUser(row) : undefined;
  };

  const store: WebauthStore = {
    countUsers: () => q.countUsers.get()!.n,
    listUsers: (now) => q.listUsers.all(now).map((r) => ({ ...toUser(r), activeSessions: r.active_sessions })),
    findUserByName: (username) => {
      const r = q.userByName.get(username);
      return r ? toUser(r) : undefined;
    },
    findUserById: (id) => {
      const r = q.userById.get(id);
      return r ? toUser(r) : undefined;
    },
    createUser: (u) => db.transaction(() => insertUser(u)).immediate(),
    createFirstUser: (u) => db.transaction(() => (q.countUsers.get()!.n === 0 ? insertUser(u) : undefined)).immediate(),
    replacePassword: (c) =>
      db
        .transaction(() => {
          if (c.requireSessionId !== undefined && q.sessionById.get(c.requireSessionId)?.user_id !== c.userId) {
            return { applied: false, endedSessions: 0 };
          }
          if (q.updatePassword.run(c.passwordHash, c.mustChangePassword ? 1 : 0, c.now, c.userId).changes !== 1) {
            return { applied: false, endedSessions: 0 };
          }
          const endedSessions = q.deleteUserSessions.run(c.userId, '').changes;
          if (c.newSession) q.insertSession.run(c.newSession.id, c.userId, c.newSession.createdAt, c.newSession.expiresAt);
          return { applied: true, endedSessions };
        })
        .immediate(),
    insertSession: (s) => {
      q.insertSession.run(s.id, s.userId, s.createdAt, s.expiresAt);
    },
    findSessionWithUser: (sessionId) => {
      const s = q.sessionById.get(sessionId);
      if (!s) return undefined;
      const u = q.userById.get(s.user_id);
      return u ? { session: toSession(s), user: toUser(u) } : undefined;
    },
    deleteSession: (sessionId) => {
      q.deleteSession.run(sessionId);
    },
    deleteUserSessions: (userId, exceptSessionId = '') => q.deleteUserSessions.run(userId, exceptSessionId).changes,
    deleteExpiredSessions: (now) => q.deleteExpired.run(now).changes,
    updateThrottle: (keys, decide) =>
      db
        .transaction(() => {
          const states = keys.map((k) => {
            const r = q.throttleRow.get(k.scope, k.key);
            return r
              ? { failures: r.failures, windowStartedAt: r.window_started_at, lastFailureAt: r.last_failure_at, nextAllowedAt: r.next_allowed_at }
              : undefined;
          });
          const { result, next } = decide(states);
          next?.forEach((state, i) => {
            const k = keys[i]!;
            if (state === null) q.deleteThrottle.run(k.scope, k.key);
            else q.upsertThrottle.run(k.scope, k.key, state.failures, state.windowStartedAt, state.lastFailureAt, state.nextAllowedAt);
          });
          return result;
        })
        .immediate(),
    clearThrottle: (keys) =>
      db
        .transaction(() => {
          for (const k of keys) q.deleteThrottle.run(k.scope, k.key);
        })
        .immediate(),
    clearAccountThrottle: (prefixes) =>
      db
        .transaction(() => {
          for (const p of prefixes) q.deleteAccountThrottle.run(p, p);
        })
        .immediate(),
    pruneThrottle: (olderThan, now) => {
      q.pruneThrottle.run(olderThan, now);
    },
  };
  return store;
}
