/**
 * oauth.db: the observer's OAuth 2.1 state — registered clients, authorization codes,
 * grants (one per approved authorization: the "family" of every token issued from it)
 * and tokens. The broker and the `terminal-mcp-observer-admin` CLI may both open it
 * (WAL plus busy_timeout serialise the writers).
 *
 * Nothing secret is stored in the clear: codes, tokens and client secrets are kept as the
 * hex SHA-256 of their value. Times are integer milliseconds since the epoch. Every
 * multi-statement decision (redeeming a code, rotating a refresh token) runs in one
 * IMMEDIATE transaction so two concurrent redemptions cannot both succeed.
 */
import type { SqliteDatabase, StoreDefinition } from './database.js';

export const oauthStoreDefinition: StoreDefinition = {
  name: 'oauth',
  migrations: [
    (db) => {
      // IF NOT EXISTS: the broker and the CLI may both open a fresh file at once.
      db.exec(`CREATE TABLE IF NOT EXISTS clients (
        client_id TEXT PRIMARY KEY,
        secret_hash TEXT,
        client_name TEXT NOT NULL,
        redirect_uris TEXT NOT NULL,
        auth_method TEXT NOT NULL CHECK (auth_method IN ('none', 'client_secret_post', 'client_secret_basic')),
        grant_types TEXT NOT NULL,
        scope TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        revoked_at INTEGER
      ) STRICT`);
      db.exec(`CREATE TABLE IF NOT EXISTS codes (
        code_hash TEXT PRIMARY KEY,
        client_id TEXT NOT NULL REFERENCES clients(client_id) ON DELETE CASCADE,
        user_id INTEGER NOT NULL,
        username TEXT NOT NULL,
        redirect_uri TEXT NOT NULL,
        code_challenge TEXT NOT NULL,
        resource TEXT NOT NULL,
        scope TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL,
        used_at INTEGER,
        grant_id TEXT
      ) STRICT`);
      db.exec(`CREATE TABLE IF NOT EXISTS grants (
        grant_id TEXT PRIMARY KEY,
        client_id TEXT NOT NULL REFERENCES clients(client_id) ON DELETE CASCADE,
        user_id INTEGER NOT NULL,
        username TEXT NOT NULL,
        resource TEXT NOT NULL,
        scope TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        last_refreshed_at INTEGER NOT NULL,
        revoked_at INTEGER,
        revoked_reason TEXT
      ) STRICT`);
      db.exec(`CREATE TABLE IF NOT EXISTS tokens (
        token_hash TEXT PRIMARY KEY,
        grant_id TEXT NOT NULL REFERENCES grants(grant_id) ON DELETE CASCADE,
        kind TEXT NOT NULL CHECK (kind IN ('access', 'refresh')),
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL,
        rotated_at INTEGER
      ) STRICT`);
      db.exec('CREATE INDEX IF NOT EXISTS grants_by_client ON grants(client_id)');
      db.exec('CREATE INDEX IF NOT EXISTS grants_by_user ON grants(username)');
      db.exec('CREATE INDEX IF NOT EXISTS tokens_by_grant ON tokens(grant_id)');
      db.exec('CREATE INDEX IF NOT EXISTS codes_by_client ON codes(client_id)');
    },
  ],
};

export type AuthMethod = 'none' | 'client_secret_post' | 'client_secret_basic';

export interface ClientRecord {
  clientId: string;
  secretHash: string | null;
  clientName: string;
  redirectUris: string[];
  authMethod: AuthMethod;
  grantTypes: string[];
  scope: string;
  createdAt: number;
  revokedAt: number | null;
}

export interface CodeRecord {
  codeHash: string;
  clientId: string;
  userId: number;
  username: string;
  redirectUri: string;
  codeChallenge: string;
  resource: string;
  scope: string;
  createdAt: number;
  expiresAt: number;
  usedAt: number | null;
  grantId: string | null;
}

export interface GrantRecord {
  grantId: string;
  clientId: string;
  userId: number;
  username: string;
  resource: string;
  scope: string;
  createdAt: number;
  lastRefreshedAt: number;
  revokedAt: number | null;
  revokedReason: string | null;
}

export type TokenKind = 'access' | 'refresh';

export interface TokenRecord {
  tokenHash: string;
  grantId: string;
  kind: TokenKind;
  createdAt: number;
  expiresAt: number;
  rotatedAt: number | null;
}

interface ClientRow {
  client_id: string;
  secret_hash: string | null;
  client_name: string;
  redirect_uris: string;
  auth_method: AuthMethod;
  grant_types: string;
  scope: string;
  created_at: number;
  revoked_at: number | null;
}

interface CodeRow {
  code_hash: string;
  client_id: string;
  user_id: number;
  username: string;
  redirect_uri: string;
  code_challenge: string;
  resource: string;
  scope: string;
  created_at: number;
  expires_at: number;
  used_at: number | null;
  grant_id: string | null;
}

interface GrantRow {
  grant_id: string;
  client_id: string;
  user_id: number;
  username: string;
  resource: string;
  scope: string;
  created_at: number;
  last_refreshed_at: number;
  revoked_at: number | null;
  revoked_reason: string | null;
}

interface TokenRow {
  token_hash: string;
  grant_id: string;
  kind: TokenKind;
  created_at: number;
  expires_at: number;
  rotated_at: number | null;
}

const jsonList = (text: string): string[] => {
  const v: unknown = JSON.parse(text);
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
};

const toClient = (r: ClientRow): ClientRecord => ({
  clientId: r.client_id,
  secretHash: r.secret_hash,
  clientName: r.client_name,
  redirectUris: jsonList(r.redirect_uris),
  authMethod: r.auth_method,
  grantTypes: jsonList(r.grant_types),
  scope: r.scope,
  createdAt: r.created_at,
  revokedAt: r.revoked_at,
});

const toCode = (r: CodeRow): CodeRecord => ({
  codeHash: r.code_hash,
  clientId: r.client_id,
  userId: r.user_id,
  username: r.username,
  redirectUri: r.redirect_uri,
  codeChallenge: r.code_challenge,
  resource: r.resource,
  scope: r.scope,
  createdAt: r.created_at,
  expiresAt: r.expires_at,
  usedAt: r.used_at,
  grantId: r.grant_id,
});

const toGrant = (r: GrantRow): GrantRecord => ({
  grantId: r.grant_id,
  clientId: r.client_id,
  userId: r.user_id,
  username: r.username,
  resource: r.resource,
  scope: r.scope,
  createdAt: r.created_at,
  lastRefreshedAt: r.last_refreshed_at,
  revokedAt: r.revoked_at,
  revokedReason: r.revoked_reason,
});

const toToken = (r: TokenRow): TokenRecord => ({
  tokenHash: r.token_hash,
  grantId: r.grant_id,
  kind: r.kind,
  createdAt: r.created_at,
  expiresAt: r.expires_at,
  rotatedAt: r.rotated_at,
});

export interface GrantListing extends GrantRecord {
  clientName: string;
  /** Expiry of the newest unrotated refresh token, or null when none is left. */
  refreshExpiresAt: number | null;
}

export interface ClientListing extends ClientRecord {
  activeGrants: number;
}

export interface OAuthStore {
  countClients(): number;
  insertClient(client: ClientRecord): void;
  findClient(clientId: string): ClientRecord | undefined;
  /** Deletes clients that were never approved (no code, no grant) and are older than
   * `createdBefore`; returns how many. Open registration must not grow without bound. */
  pruneUnusedClients(createdBefore: number): number;
  /** Deletes up to `limit` never-approved clients older than `createdBefore`, oldest
   * first; returns how many. */
  evictOldestUnusedClients(createdBefore: number, limit: number): number;
  insertCode(code: CodeRecord): void;
  findCode(codeHash: string): CodeRecord | undefined;
  /** Marks the code used; false when it already was (a concurrent redemption won). */
  markCodeUsed(codeHash: string, now: number): boolean;
  setCodeGrant(codeHash: string, grantId: string): void;
  insertGrant(grant: GrantRecord): void;
  findGrant(grantId: string): GrantRecord | undefined;
  touchGrant(grantId: string, now: number): void;
  /** Revokes one grant (its tokens stop working at once); false when already revoked. */
  revokeGrant(grantId: string, now: number, reason: string): boolean;
  /** Revokes every live grant of a client or user; returns how many. */
  revokeGrantsOfClient(clientId: string, now: number, reason: string): number;
  revokeGrantsOfUser(username: string, now: number, reason: string): number;
  /** Marks the client revoked; false when it does not exist or already was. */
  revokeClient(clientId: string, now: number): boolean;
  insertToken(token: TokenRecord): void;
  findToken(tokenHash: string): TokenRecord | undefined;
  /** Marks a refresh token rotated; false when it already was (reuse or a race). */
  markTokenRotated(tokenHash: string, now: number): boolean;
  listClients(now: number): ClientListing[];
  /** Live (unrevoked) grants, newest first. */
  listActiveGrants(now: number): GrantListing[];
  /** Revocations, newest first: revoked clients, and revoked grants grouped by the moment,
   * reason, client and user they were revoked with (one "revoke user" is one entry). Kept
   * as long as `prune` keeps the rows. */
  listRevocations(limit: number): RevocationListing[];
  /** Removes expired tokens, codes that expired before `codesExpiredBefore` (used codes
   * are kept a while so a late replay still revokes what they issued), and grants revoked
   * or without tokens since before `deadBefore`. */
  prune(now: number, codesExpiredBefore: number, deadBefore: number): void;
  /** Runs `fn` in one IMMEDIATE transaction. */
  transaction<T>(fn: () => T): T;
}

export interface RevocationListing {
  at: number;
  kind: 'client' | 'grants';
  clientId: string;
  clientName: string;
  /** Grant revocations only. */
  username: string | null;
  grants: number;
  /** e.g. "revoked by web:admin", "refresh token reused"; null for a client. */
  reason: string | null;
}

export function oauthStore(db: SqliteDatabase): OAuthStore {
  const clientColumns = 'client_id, secret_hash, client_name, redirect_uris, auth_method, grant_types, scope, created_at, revoked_at';
  const codeColumns = 'code_hash, client_id, user_id, username, redirect_uri, code_challenge, resource, scope, created_at, expires_at, used_at, grant_id';
  const grantColumns = 'grant_id, client_id, user_id, username, resource, scope, created_at, last_refreshed_at, revoked_at, revoked_reason';
  const tokenColumns = 'token_hash, grant_id, kind, created_at, expires_at, rotated_at';
  const prefixed = (cols: string, p: string) => cols.split(', ').map((c) => `${p}.${c}`).join(', ');

  const q = {
    countClients: db.prepare<[], { n: number }>('SELECT count(*) AS n FROM clients'),
    insertClient: db.prepare<[string, string | null, string, string, string, string, string, number, number | null]>(
      `INSERT INTO clients (${clientColumns}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    clientById: db.prepare<[string], ClientRow>(`SELECT ${clientColumns} FROM clients WHERE client_id = ?`),
    pruneClients: db.prepare<[number]>(
      `DELETE FROM clients WHERE created_at < ?
         AND NOT EXISTS (SELECT 1 FROM codes c WHERE c.client_id = clients.client_id)
         AND NOT EXISTS (SELECT 1 FROM grants g WHERE g.client_id = clients.client_id)`,
    ),
    evictClients: db.prepare<[number, number]>(
      `DELETE FROM clients WHERE client_id IN (
         SELECT client_id FROM clients WHERE created_at < ?
           AND NOT EXISTS (SELECT 1 FROM codes c WHERE c.client_id = clients.client_id)
           AND NOT EXISTS (SELECT 1 FROM grants g WHERE g.client_id = clients.client_id)
         ORDER BY created_at LIMIT ?)`,
    ),
    insertCode: db.prepare<[string, string, number, string, string, string, string, string, number, number]>(
      `INSERT INTO codes (code_hash, client_id, user_id, username, redirect_uri, code_challenge, resource, scope, created_at, expires_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    codeByHash: db.prepare<[string], CodeRow>(`SELECT ${codeColumns} FROM codes WHERE code_hash = ?`),
    markCodeUsed: db.prepare<[number, string]>('UPDATE codes SET used_at = ? WHERE code_hash = ? AND used_at IS NULL'),
    setCodeGrant: db.prepare<[string, string]>('UPDATE codes SET grant_id = ? WHERE code_hash = ?'),
    insertGrant: db.prepare<[string, string, number, string, string, string, number, number]>(
      `INSERT INTO grants (grant_id, client_id, user_id, username, resource, scope, created_at, last_refreshed_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    grantById: db.prepare<[string], GrantRow>(`SELECT ${grantColumns} FROM grants WHERE grant_id = ?`),
    touchGrant: db.prepare<[number, string]>('UPDATE grants SET last_refreshed_at = ? WHERE grant_id = ?'),
    revokeGrant: db.prepare<[number, string, string]>(
      'UPDATE grants SET revoked_at = ?, revoked_reason = ? WHERE grant_id = ? AND revoked_at IS NULL',
    ),
    revokeGrantsOfClient: db.prepare<[number, string, string]>(
      'UPDATE grants SET revoked_at = ?, revoked_reason = ? WHERE client_id = ? AND revoked_at IS NULL',
    ),
    revokeGrantsOfUser: db.prepare<[number, string, string]>(
      'UPDATE grants SET revoked_at = ?, revoked_reason = ? WHERE username = ? AND revoked_at IS NULL',
    ),
    revokeClient: db.prepare<[number, string]>('UPDATE clients SET revoked_at = ? WHERE client_id = ? AND revoked_at IS NULL'),
    insertToken: db.prepare<[string, string, string, number, number]>(
      'INSERT INTO tokens (token_hash, grant_id, kind, created_at, expires_at) VALUES (?, ?, ?, ?, ?)',
    ),
    tokenByHash: db.prepare<[string], TokenRow>(`SELECT ${tokenColumns} FROM tokens WHERE token_hash = ?`),
    markRotated: db.prepare<[number, string]>("UPDATE tokens SET rotated_at = ? WHERE token_hash = ? AND kind = 'refresh' AND rotated_at IS NULL"),
    listClients: db.prepare<[number], ClientRow & { active_grants: number }>(
      `SELECT ${prefixed(clientColumns, 'c')},
         (SELECT count(*) FROM grants g WHERE g.client_id = c.client_id AND g.revoked_at IS NULL
            AND EXISTS (SELECT 1 FROM tokens t WHERE t.grant_id = g.grant_id AND t.expires_at > ?)) AS active_grants
       FROM clients c ORDER BY c.created_at DESC`,
    ),
    listActiveGrants: db.prepare<[number], GrantRow & { client_name: string; refresh_expires_at: number | null }>(
      `SELECT ${prefixed(grantColumns, 'g')}, c.client_name AS client_name,
         (SELECT max(t.expires_at) FROM tokens t WHERE t.grant_id = g.grant_id AND t.kind = 'refresh' AND t.rotated_at IS NULL) AS refresh_expires_at
       FROM grants g JOIN clients c ON c.client_id = g.client_id
       WHERE g.revoked_at IS NULL AND EXISTS (SELECT 1 FROM tokens t WHERE t.grant_id = g.grant_id AND t.expires_at > ?)
       ORDER BY g.created_at DESC`,
    ),
    revokedGrants: db.prepare<[number], { at: number; reason: string | null; client_id: string; client_name: string; username: string; grants: number }>(
      `SELECT g.revoked_at AS at, g.revoked_reason AS reason, g.client_id AS client_id, c.client_name AS client_name, g.username AS username, count(*) AS grants
       FROM grants g JOIN clients c ON c.client_id = g.client_id
       WHERE g.revoked_at IS NOT NULL
       GROUP BY g.revoked_at, g.revoked_reason, g.client_id, g.username ORDER BY g.revoked_at DESC LIMIT ?`,
    ),
    revokedClients: db.prepare<[number], { at: number; client_id: string; client_name: string }>(
      'SELECT revoked_at AS at, client_id, client_name FROM clients WHERE revoked_at IS NOT NULL ORDER BY revoked_at DESC LIMIT ?',
    ),
    pruneCodes: db.prepare<[number]>('DELETE FROM codes WHERE expires_at <= ?'),
    pruneTokens: db.prepare<[number]>('DELETE FROM tokens WHERE expires_at <= ?'),
    pruneGrants: db.prepare<[number, number]>(
      `DELETE FROM grants WHERE (revoked_at IS NOT NULL AND revoked_at < ?)
         OR (last_refreshed_at < ? AND NOT EXISTS (SELECT 1 FROM tokens t WHERE t.grant_id = grants.grant_id))`,
    ),
  };

  const store: OAuthStore = {
    countClients: () => q.countClients.get()!.n,
    insertClient: (c) => {
      q.insertClient.run(
        c.clientId,
        c.secretHash,
        c.clientName,
        JSON.stringify(c.redirectUris),
        c.authMethod,
        JSON.stringify(c.grantTypes),
        c.scope,
        c.createdAt,
        c.revokedAt,
      );
    },
    findClient: (id) => {
      const r = q.clientById.get(id);
      return r ? toClient(r) : undefined;
    },
    pruneUnusedClients: (before) => q.pruneClients.run(before).changes,
    evictOldestUnusedClients: (before, limit) => q.evictClients.run(before, limit).changes,
    insertCode: (c) => {
      q.insertCode.run(c.codeHash, c.clientId, c.userId, c.username, c.redirectUri, c.codeChallenge, c.resource, c.scope, c.createdAt, c.expiresAt);
    },
    findCode: (h) => {
      const r = q.codeByHash.get(h);
      return r ? toCode(r) : undefined;
    },
    markCodeUsed: (h, now) => q.markCodeUsed.run(now, h).changes === 1,
    setCodeGrant: (h, grantId) => {
      q.setCodeGrant.run(grantId, h);
    },
    insertGrant: (g) => {
      q.insertGrant.run(g.grantId, g.clientId, g.userId, g.username, g.resource, g.scope, g.createdAt, g.lastRefreshedAt);
    },
    findGrant: (id) => {
      const r = q.grantById.get(id);
      return r ? toGrant(r) : undefined;
    },
    touchGrant: (id, now) => {
      q.touchGrant.run(now, id);
    },
    revokeGrant: (id, now, reason) => q.revokeGrant.run(now, reason, id).changes === 1,
    revokeGrantsOfClient: (clientId, now, reason) => q.revokeGrantsOfClient.run(now, reason, clientId).changes,
    revokeGrantsOfUser: (username, now, reason) => q.revokeGrantsOfUser.run(now, reason, username).changes,
    revokeClient: (clientId, now) => q.revokeClient.run(now, clientId).changes === 1,
    insertToken: (t) => {
      q.insertToken.run(t.tokenHash, t.grantId, t.kind, t.createdAt, t.expiresAt);
    },
    findToken: (h) => {
      const r = q.tokenByHash.get(h);
      return r ? toToken(r) : undefined;
    },
    markTokenRotated: (h, now) => q.markRotated.run(now, h).changes === 1,
    listClients: (now) => q.listClients.all(now).map((r) => ({ ...toClient(r), activeGrants: r.active_grants })),
    listRevocations: (limit) =>
      [
        ...q.revokedClients.all(limit).map((r): RevocationListing => ({ at: r.at, kind: 'client', clientId: r.client_id, clientName: r.client_name, username: null, grants: 0, reason: null })),
        ...q.revokedGrants.all(limit).map((r): RevocationListing => ({ at: r.at, kind: 'grants', clientId: r.client_id, clientName: r.client_name, username: r.username, grants: r.grants, reason: r.reason })),
      ]
        .sort((a, b) => b.at - a.at || (a.kind === b.kind ? 0 : a.kind === 'client' ? -1 : 1))
        .slice(0, limit),
    listActiveGrants: (now) =>
      q.listActiveGrants.all(now).map((r) => ({ ...toGrant(r), clientName: r.client_name, refreshExpiresAt: r.refresh_expires_at })),
    prune: (now, codesExpiredBefore, deadBefore) =>
      db
        .transaction(() => {
          q.pruneCodes.run(codesExpiredBefore);
          q.pruneTokens.run(now);
          q.pruneGrants.run(deadBefore, deadBefore);
        })
        .immediate(),
    transaction: (fn) => db.transaction(fn).immediate(),
  };
  return store;
}
