/**
 * `audit-hmac.key` in the state directory: 32 random bytes, the key of the HMAC-SHA256
 * the audit log stores instead of the text (a plain SHA-256 of a short text is reversible
 * by guessing). Kept like every state-dir secret (secret-file.ts); an unusable file is
 * refused rather than replaced, because replacing the key would make every earlier HMAC
 * unverifiable.
 */
import { loadOrCreateSecret } from './secret-file.js';

export const AUDIT_KEY_FILE_NAME = 'audit-hmac.key';

/** The audit HMAC key: read from the state directory, or generated there on first use. */
export function loadOrCreateAuditKey(stateDir: string): Buffer {
  return loadOrCreateSecret(stateDir, AUDIT_KEY_FILE_NAME, 32, 'audit key file');
}
