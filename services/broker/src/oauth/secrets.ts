/**
 * The random values of the OAuth server and how they are stored. Every value a client
 * holds (code, access token, refresh token, client secret) is 32 random bytes in
 * base64url behind a short prefix that says what it is (so a leaked one is recognisable
 * in logs and scanners); the store keeps only its SHA-256 in hex, so a copy of oauth.db
 * yields nothing usable. Ids (client, grant) are not secret and are stored as they are.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export const SECRET_PREFIX = {
  code: 'tmcp_ac_',
  access: 'tmcp_at_',
  refresh: 'tmcp_rt_',
  clientSecret: 'tmcp_cs_',
} as const;

export type SecretKind = keyof typeof SECRET_PREFIX;

export function newSecret(kind: SecretKind): string {
  return `${SECRET_PREFIX[kind]}${randomBytes(32).toString('base64url')}`;
}

/** A client id: public, unguessable enough that ids cannot be enumerated. */
export function newClientId(): string {
  return `tmcp_c_${randomBytes(16).toString('base64url')}`;
}

export function newGrantId(): string {
  return `g_${randomBytes(12).toString('base64url')}`;
}

export function hashSecret(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}

/** Constant-time comparison of a presented secret with a stored hash. */
export function secretMatchesHash(presented: string, storedHash: string): boolean {
  const a = Buffer.from(hashSecret(presented), 'hex');
  const b = Buffer.from(storedHash, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}
