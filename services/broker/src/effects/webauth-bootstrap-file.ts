/**
 * `webauth-bootstrap.txt` in the state directory: the one place the first-start admin
 * password is ever written. Created exclusively, 0600, and never through a symlink
 * (O_EXCL refuses any existing entry, a dangling link included; O_NOFOLLOW says so again),
 * so a link planted at that path cannot redirect the secret into another file.
 * Removed when that password is changed.
 */
import { closeSync, constants, fchmodSync, openSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { ensureStateDir } from './store/database.js';

export const BOOTSTRAP_FILE_NAME = 'webauth-bootstrap.txt';

export interface BootstrapSecretFile {
  /** Where the file lives (for messages; never the content). */
  readonly path: string;
  /** 'exists' when anything (file, directory, symlink) is already at the path. */
  write(content: string): 'written' | 'exists';
  /** True when a file was removed. Never follows a symlink (unlink removes the link). */
  remove(): boolean;
}

export function bootstrapSecretFile(stateDir: string): BootstrapSecretFile {
  const path = join(stateDir, BOOTSTRAP_FILE_NAME);
  return {
    path,
    write(content) {
      ensureStateDir(stateDir);
      let fd: number;
      try {
        fd = openSync(path, constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY | constants.O_NOFOLLOW, 0o600);
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code === 'EEXIST' || code === 'ELOOP') return 'exists';
        throw err;
      }
      try {
        fchmodSync(fd, 0o600); // the umask may have taken bits away; make it exactly 0600
        writeSync(fd, content);
      } finally {
        closeSync(fd);
      }
      return 'written';
    },
    remove() {
      try {
        unlinkSync(path);
        return true;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
        throw err;
      }
    },
  };
}
