/**
 * A storage failure that reached a procedure unhandled (a SQLite write on a full disk, an
 * I/O error, a file gone read-only) is not a bug in the broker: it gets its own code, so a
 * caller learns that the disk is full (STORE_FULL) or a store cannot be used
 * (STORE_UNAVAILABLE) instead of INTERNAL. Recognised by the error's `code` (better-sqlite3's
 * SqliteError carries SQLite's extended code; Node's fs errors their errno name), never by
 * its message. Anything else stays INTERNAL.
 */
import { AppError } from '@terminal-mcp/contract';

/** Full disk or quota: what SQLite and the filesystem say when nothing more fits. */
const FULL: ReadonlySet<string> = new Set(['SQLITE_FULL', 'ENOSPC', 'EDQUOT']);
/** SQLite result families (the extended codes add a suffix: SQLITE_IOERR_WRITE) that mean
 * the store cannot be used now. */
const UNAVAILABLE_PREFIXES = ['SQLITE_IOERR', 'SQLITE_CORRUPT', 'SQLITE_NOTADB', 'SQLITE_CANTOPEN', 'SQLITE_READONLY', 'SQLITE_BUSY', 'SQLITE_LOCKED', 'SQLITE_PROTOCOL'] as const;
/** Causes are followed this deep (an error wrapped by a store helper, then by tRPC). */
const MAX_CAUSE_DEPTH = 4;

function codeOf(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null | undefined)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** The caller-safe error for a storage failure anywhere in `err`'s cause chain; null when
 * it is not one. */
export function storeFailureOf(err: unknown): AppError | null {
  let current: unknown = err;
  for (let depth = 0; depth < MAX_CAUSE_DEPTH && current; depth++) {
    const code = codeOf(current);
    if (code !== undefined) {
      // SQLITE_IOERR_NOMEM and friends are not the disk; a full disk under an I/O error is
      // reported by SQLite as SQLITE_FULL itself.
      if (FULL.has(code)) return new AppError('STORE_FULL', 'the disk holding the broker\'s state is full, so nothing was saved');
      if (UNAVAILABLE_PREFIXES.some((p) => code === p || code.startsWith(`${p}_`))) return new AppError('STORE_UNAVAILABLE', 'a broker store could not be written, so nothing was saved');
    }
    current = (current as { cause?: unknown }).cause;
  }
  return null;
}
