/**
 * Login sessions after the Lucia session guide (the `lucia` package itself is deprecated):
 * the client holds a random token (20 bytes, base32 lower-case); the store holds only
 * SHA-256(token) in hex as the session id, so a leaked database yields no usable cookie.
 * Lifetime is ABSOLUTE: 12 hours from login or password change, never extended.
 */
import { randomBytes } from 'node:crypto';
import { sha256 } from '@oslojs/crypto/sha2';
import { encodeBase32LowerCaseNoPadding, encodeHexLowerCase } from '@oslojs/encoding';
import type { SessionRecord, UserRecord } from '../effects/store/webauth-store.js';
import type { WebauthEnv } from './env.js';

export const SESSION_LIFETIME_MS = 12 * 60 * 60_000;

/** 20 random bytes encode to exactly 32 base32 characters. */
const TOKEN_PATTERN = /^[a-z2-7]{32}$/;

export function generateSessionToken(): string {
  return encodeBase32LowerCaseNoPadding(randomBytes(20));
}

export function sessionIdFromToken(token: string): string {
  return encodeHexLowerCase(sha256(new TextEncoder().encode(token)));
}

/** A fresh token and the record to store for it (not yet stored). */
export function newSession(userId: number, now: number): { token: string; session: SessionRecord } {
  const token = generateSessionToken();
  return { token, session: { id: sessionIdFromToken(token), userId, createdAt: now, expiresAt: now + SESSION_LIFETIME_MS } };
}

export function createSession(env: WebauthEnv, userId: number): { token: string; session: SessionRecord } {
  const now = env.now();
  env.store.deleteExpiredSessions(now);
  const created = newSession(userId, now);
  env.store.insertSession(created.session);
  return created;
}

export interface ValidSession {
  session: SessionRecord;
  user: UserRecord;
}

/** The session and its user, or null when the token is malformed, unknown or expired
 * (an expired one is deleted on sight). */
export function validateSessionToken(env: WebauthEnv, token: string): ValidSession | null {
  if (!TOKEN_PATTERN.test(token)) return null;
  const id = sessionIdFromToken(token);
  const found = env.store.findSessionWithUser(id);
  if (!found) return null;
  if (env.now() >= found.session.expiresAt) {
    env.store.deleteSession(id);
    return null;
  }
  return found;
}

export function invalidateSessionToken(env: WebauthEnv, token: string): void {
  if (TOKEN_PATTERN.test(token)) env.store.deleteSession(sessionIdFromToken(token));
}

/** Ends every session of the user, except `keepSessionId` when given. */
export function invalidateUserSessions(env: WebauthEnv, userId: number, keepSessionId?: string): number {
  return env.store.deleteUserSessions(userId, keepSessionId);
}
