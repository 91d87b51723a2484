/**
 * A random secret kept in a file of the state directory: generated once, created
 * exclusively (O_EXCL, never through a symlink: O_NOFOLLOW) with mode 0600. An existing
 * file is used only if it is a regular file of exactly the expected size, owned by this
 * user and not readable by anyone else; anything else is refused rather than silently
 * replaced (replacing a key invalidates what was made with it).
 */
import { randomBytes } from 'node:crypto';
import { closeSync, constants, fchmodSync, fstatSync, openSync, readSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { ensureStateDir } from './store/database.js';

function readExisting(path: string, bytes: number, what: string): Buffer {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    const st = fstatSync(fd);
    const uid = process.getuid?.();
    if (!st.isFile() || st.size !== bytes) throw new Error(`${what} is not a ${bytes}-byte regular file`);
    if ((uid !== undefined && st.uid !== uid) || (st.mode & 0o077) !== 0) throw new Error(`${what} must belong to this user with mode 0600`);
    const key = Buffer.alloc(bytes);
    if (readSync(fd, key, 0, bytes, 0) !== bytes) throw new Error(`${what} could not be read whole`);
    return key;
  } finally {
    closeSync(fd);
  }
}

/** The secret in `<stateDir>/<name>`, generated there on first use. */
export function loadOrCreateSecret(stateDir: string, name: string, bytes: number, what: string): Buffer {
  ensureStateDir(stateDir);
  const path = join(stateDir, name);
  let fd: number;
  try {
    fd = openSync(path, constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY | constants.O_NOFOLLOW, 0o600);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return readExisting(path, bytes, what);
    throw err;
  }
  const key = randomBytes(bytes);
  try {
    fchmodSync(fd, 0o600); // the umask may have taken bits away; make it exactly 0600
    if (writeSync(fd, key) !== bytes) throw new Error(`${what} could not be written whole`);
  } finally {
    closeSync(fd);
  }
  return key;
}

/** The secret in `<stateDir>/<name>` if it exists (and passes the same checks), else undefined. */
export function readSecret(stateDir: string, name: string, bytes: number, what: string): Buffer | undefined {
  try {
    return readExisting(join(stateDir, name), bytes, what);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}
