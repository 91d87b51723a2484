/**
 * Opens project files for the read-only source reader without ever leaving the root.
 *
 * The caller has already refused the path lexically (policy/source-paths). Here the path
 * is resolved with realpath and must lie inside the root's real path; the policy is then
 * applied to the RESOLVED relative path too, so a symlink can lead neither out of the
 * root nor to a secret file or into `.git`. The file is opened with O_NOFOLLOW and
 * O_NONBLOCK (a FIFO cannot hang the broker), must be a regular file, and the opened
 * descriptor is checked to be the very file that was resolved (via /proc/self/fd), so
 * swapping a directory for a symlink between the check and the open does not help.
 *
 * Existence is not disclosed outside the root: a missing path whose nearest existing
 * ancestor resolves outside the root is refused (PATH_NOT_ALLOWED), not NOT_FOUND.
 */
import { constants, type Stats } from 'node:fs';
import { open, readlink, realpath, stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { AppError } from '@terminal-mcp/contract';
import { decideSourcePath, describeSourcePathRefusal } from '../../policy/source-paths.js';

/** Bytes looked at for NUL to call a file binary (git's own heuristic uses the same size). */
export const BINARY_SNIFF_BYTES = 8 * 1024;

export interface ResolvedSourcePath {
  /** Absolute real path, inside the root. */
  realPath: string;
  /** Real path relative to the root, '/'-separated; '' for the root itself. */
  relPath: string;
}

export interface SourceFileHead {
  /** Size of the whole file. */
  size: number;
  /** The first min(size, maxBytes) bytes. */
  bytes: Buffer;
  /** True when `bytes` is the whole file. */
  complete: boolean;
  /** A NUL byte occurs in the first BINARY_SNIFF_BYTES. */
  binary: boolean;
}

function errno(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException | undefined)?.code;
}

function isInside(root: string, candidate: string): boolean {
  return candidate === root || candidate.startsWith(root.endsWith(sep) ? root : root + sep);
}

/** The real path of a configured project root; NOT_FOUND when it is missing or not a directory. */
export async function resolveRoot(path: string): Promise<string> {
  try {
    const real = await realpath(path);
    if (!(await stat(real)).isDirectory()) throw new AppError('NOT_FOUND', 'the project directory is unavailable');
    return real;
  } catch (err) {
    if (err instanceof AppError) throw err;
    throw new AppError('NOT_FOUND', 'the project directory is unavailable');
  }
}

/** NOT_FOUND when the nearest existing ancestor of a missing path is inside the root,
 * PATH_NOT_ALLOWED when it is outside (the answer must not reveal what exists there). */
async function missingPathError(root: string, relPath: string): Promise<AppError> {
  const segments = relPath.split('/');
  for (let n = segments.length - 1; n >= 0; n -= 1) {
    try {
      const ancestor = await realpath(join(root, ...segments.slice(0, n)));
      return isInside(root, ancestor)
        ? new AppError('NOT_FOUND', 'no such file in the project')
        : new AppError('PATH_NOT_ALLOWED', 'that path leads outside the project root');
    } catch {
      // keep walking up
    }
  }
  return new AppError('NOT_FOUND', 'no such file in the project');
}

/**
 * Resolve a lexically checked, normalised relative path (see decideSourcePath) to its
 * real path, refusing anything that resolves outside `root` (a real path) or to a
 * protected path.
 */
export async function resolveInsideRoot(root: string, relPath: string): Promise<ResolvedSourcePath> {
  let real: string;
  try {
    real = await realpath(join(root, relPath));
  } catch (err) {
    const code = errno(err);
    if (code === 'ENOENT' || code === 'ENOTDIR') throw await missingPathError(root, relPath);
    if (code === 'ELOOP') throw new AppError('PATH_NOT_ALLOWED', 'that path is a symlink loop');
    if (code === 'EACCES') throw new AppError('PATH_NOT_ALLOWED', 'that path is not readable');
    throw err;
  }
  if (!isInside(root, real)) throw new AppError('PATH_NOT_ALLOWED', 'that path leads outside the project root');
  const rel = relative(root, real).split(sep).join('/');
  const decision = decideSourcePath(rel, { allowRoot: true });
  if (!decision.allowed) throw new AppError('PATH_NOT_ALLOWED', `that path resolves to a protected location: ${describeSourcePathRefusal(decision.reason)}`);
  return { realPath: real, relPath: decision.path };
}

/** Same file: device and inode agree. */
function sameFile(a: Stats, b: Stats): boolean {
  return a.dev === b.dev && a.ino === b.ino;
}

/**
 * Read the head of a resolved file: at most `maxBytes`, refusing anything that is not a
 * regular file and anything that is not, once opened, the file that was resolved.
 */
export async function readResolvedFile(resolved: ResolvedSourcePath, options: { maxBytes: number }): Promise<SourceFileHead> {
  let before: Stats;
  try {
    before = await stat(resolved.realPath);
  } catch {
    throw new AppError('NOT_FOUND', 'no such file in the project');
  }
  if (before.isDirectory()) throw new AppError('INVALID_ARGUMENT', 'that path is a directory: list it with listFiles');
  // Devices, FIFOs and sockets are never opened: opening some devices has side effects.
  if (!before.isFile()) throw new AppError('PATH_NOT_ALLOWED', 'that path is not a regular file');

  let handle;
  try {
    handle = await open(resolved.realPath, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK | constants.O_NOCTTY);
  } catch (err) {
    const code = errno(err);
    if (code === 'ENOENT') throw new AppError('NOT_FOUND', 'no such file in the project');
    throw new AppError('PATH_NOT_ALLOWED', 'that file cannot be opened');
  }
  try {
    const opened = await handle.stat();
    if (!opened.isFile() || !sameFile(before, opened)) throw new AppError('PATH_NOT_ALLOWED', 'the file changed while it was opened');
    await assertDescriptorIs(handle.fd, resolved.realPath, opened);

    const want = Math.min(opened.size, options.maxBytes);
    const bytes = Buffer.alloc(want);
    let got = 0;
    while (got < want) {
      const { bytesRead } = await handle.read(bytes, got, want - got, got);
      if (bytesRead === 0) break;
      got += bytesRead;
    }
    const head = bytes.subarray(0, got);
    const binary = head.subarray(0, BINARY_SNIFF_BYTES).includes(0);
    return { size: opened.size, bytes: head, complete: got >= opened.size, binary };
  } finally {
    await handle.close();
  }
}

/** The descriptor must name the resolved path now. On Linux /proc/self/fd tells; elsewhere
 * the path is resolved again and must still be the same file. */
async function assertDescriptorIs(fd: number, realPath: string, opened: Stats): Promise<void> {
  let actual: string | undefined;
  try {
    actual = await readlink(`/proc/self/fd/${fd}`);
  } catch {
    actual = undefined;
  }
  if (actual !== undefined) {
    if (actual !== realPath) throw new AppError('PATH_NOT_ALLOWED', 'the file changed while it was opened');
    return;
  }
  const again = await realpath(realPath).catch(() => '');
  if (again !== realPath || !sameFile(await stat(again), opened)) {
    throw new AppError('PATH_NOT_ALLOWED', 'the file changed while it was opened');
  }
}
