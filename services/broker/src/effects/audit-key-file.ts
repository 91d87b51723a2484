/**
 * `audit-hmac.key` in the state directory: 32 random bytes, the key of the HMAC-SHA256
 * the audit log stores instead of the text (a plain SHA-256 of a short text is reversible
 * by guessing). Generated once, created exclusively (O_EXCL, never through a symlink:
 * O_NOFOLLOW) with mode 0600. An existing key is used only if it is a regular file of
 * exactly 32 bytes owned by this user and not readable by anyone else; anything else is
 * refused rather than silently replaced, because replacing the key would make every
 * earlier HMAC unverifiable.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, constants, fchmodSync, fstatSync, openSync, readSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { ensureStateDir } from './store/database.js';

export const AUDIT_KEY_FILE_NAME = 'audit-hmac.key';
const KEY_BYTES = 32;

function readExisting(path: string): Buffer {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    const st = fstatSync(fd);
    const uid = process.getuid?.();
    if (!st.isFile() || st.size !== KEY_BYTES) throw new Error('audit key file is not a 32-byte regular file');
    if ((uid !== undefined && st.uid !== uid) || (st.mode & 0o077) !== 0) {
      throw new Error('audit key file must belong to the broker user with mode 0600');
    }
    const key = Buffer.alloc(KEY_BYTES);
    if (readSync(fd, key, 0, KEY_BYTES, 0) !== KEY_BYTES) throw new Error('audit key file could not be read whole');
    return key;
  } finally {
    closeSync(fd);
  }
}

/** The audit HMAC key: read from the state directory, or generated there on first use. */
export function loadOrCreateAuditKey(stateDir: string): Buffer {
  ensureStateDir(stateDir);
  const path = join(stateDir, AUDIT_KEY_FILE_NAME);
  let fd: number;
  try {
    fd = openSync(path, constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY | constants.O_NOFOLLOW, 0o600);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return readExisting(path);
    throw err;
  }
  const key = randomBytes(KEY_BYTES);
  try {
    fchmodSync(fd, 0o600); // the umask may have taken bits away; make it exactly 0600
    if (writeSync(fd, key) !== KEY_BYTES) throw new Error('audit key file could not be written whole');
  } finally {
    closeSync(fd);
  }
  return key;
}
