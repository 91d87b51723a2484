/**
 * Operator passwords: argon2id at the OWASP ASVS minimum (m=19 MiB, t=2, p=1), length
 * 12-256 characters, not built from the user name, not on a short list of obvious ones.
 * The parameters are stored inside each hash, so raising them later keeps old hashes
 * verifiable.
 */
import { randomBytes } from 'node:crypto';
import { encodeBase32LowerCaseNoPadding } from '@oslojs/encoding';
import { AUTH_LIMITS } from '@terminal-mcp/contract';
import { hash, verify, type Options } from '../effects/argon2.js';

/** `Algorithm.Argon2id` is a const enum in the typings; its runtime value is 2. */
const ARGON2ID = 2;

export const PASSWORD_HASH_OPTIONS: Readonly<Options> = {
  algorithm: ARGON2ID,
  memoryCost: 19_456, // KiB = 19 MiB
  timeCost: 2,
  parallelism: 1,
  outputLen: 32,
};

export function hashPassword(password: string): Promise<string> {
  return hash(password, PASSWORD_HASH_OPTIONS);
}

/** False for a wrong password and for a malformed stored hash alike. */
export async function verifyPassword(passwordHash: string, password: string): Promise<boolean> {
  try {
    return await verify(passwordHash, password);
  } catch {
    return false;
  }
}

/** A real hash of a random secret with the real parameters: an unknown user name is
 * verified against it so it costs the same time as a wrong password. Hashed once per
 * owner (webauth/env.ts), on first use. */
export function dummyPasswordHasher(): () => Promise<string> {
  let dummyHash: Promise<string> | undefined;
  return () => (dummyHash ??= hashPassword(encodeBase32LowerCaseNoPadding(randomBytes(20))));
}

const OBVIOUS_PASSWORDS: ReadonlySet<string> = new Set([
  'password1234',
  'password12345',
  'password123456',
  'passwordpassword',
  'qwertyuiop12',
  'qwertyuiopasdf',
  '1q2w3e4r5t6y',
  'letmeinletmein',
  'iloveyou1234',
  'administrator',
  'changemechangeme',
  'correcthorsebatterystaple',
  'terminal-mcp',
  'terminalmcp123',
  'trustno1trustno1',
]);

const DIGIT_RUN = '01234567890123456789012345678901234567890';

/** Why the password is refused, as a message an operator can act on; null when it is
 * acceptable. Lengths count characters (code points), not bytes. */
export function passwordRuleViolation(password: string, username: string): string | null {
  const length = [...password].length;
  if (length < AUTH_LIMITS.passwordMin) return `the password must be at least ${AUTH_LIMITS.passwordMin} characters long`;
  if (length > AUTH_LIMITS.passwordMax) return `the password must be at most ${AUTH_LIMITS.passwordMax} characters long`;
  const lower = password.toLowerCase();
  const name = username.toLowerCase();
  // Containment is checked for names of 3+ characters: a one- or two-letter name would
  // forbid most passwords.
  if (lower === name || (name.length >= 3 && lower.includes(name))) return 'the password must not contain the user name';
  if (lower === [...name].reverse().join('')) return 'the password must not be the user name reversed';
  if (OBVIOUS_PASSWORDS.has(lower)) return 'the password is too common; choose another';
  if (/^(.)\1*$/su.test(password)) return 'the password must not be one character repeated';
  if (/^\d+$/.test(password) && (DIGIT_RUN.includes(password) || [...DIGIT_RUN].reverse().join('').includes(password))) {
    return 'the password must not be a run of digits';
  }
  return null;
}

/** 24 base32 characters (120 random bits) for the first-start account. */
export function generateBootstrapPassword(username: string): string {
  for (;;) {
    const candidate = encodeBase32LowerCaseNoPadding(randomBytes(15));
    if (passwordRuleViolation(candidate, username) === null) return candidate;
  }
}
