/**
 * Reading an attachment from a host file, for note_add_attachment(source_path). Refused
 * outright unless the operator named directories in `notes.attachment_source_roots`; then
 * the path's real path (all symlinks resolved) must lie inside one root's real path, must
 * not be a protected file (keys, .env, .git: the source reader's rules), and must be a
 * regular file no larger than the attachment cap. A path that is missing or outside every
 * root gets one answer, so the tool cannot probe what exists elsewhere on the host.
 */
import { realpath } from 'node:fs/promises';
import { isAbsolute, relative, sep } from 'node:path';
import { AppError } from '@terminal-mcp/contract';
import { readResolvedFile, resolveInsideRoot, resolveRoot } from '../source-files/source-file.js';

const NO_ROOTS_HINT = 'Reading host files is off: send the image as data_base64, or ask the operator to list its directory in notes.attachment_source_roots.';
const OUTSIDE_HINT = 'Use a file under one of notes.attachment_source_roots (symlinks may not lead out), or send the image as data_base64.';

const isInside = (root: string, candidate: string) => candidate === root || candidate.startsWith(root.endsWith(sep) ? root : root + sep);

export async function readAttachmentSource(roots: readonly string[], sourcePath: string, maxBytes: number): Promise<Buffer> {
  if (roots.length === 0) throw new AppError('PATH_NOT_ALLOWED', 'reading attachments from host files is not enabled', NO_ROOTS_HINT);
  const refused = new AppError('PATH_NOT_ALLOWED', 'that path is not a readable file under the attachment source roots', OUTSIDE_HINT);
  if (!isAbsolute(sourcePath) || sourcePath.includes('\0')) throw refused;
  const real = await realpath(sourcePath).catch(() => null);
  if (real === null) throw refused;
  for (const configured of roots) {
    const root = await resolveRoot(configured).catch(() => null);
    if (root === null || !isInside(root, real) || root === real) continue;
    // Resolved again inside the root, with the protected-path rules applied to the result.
    const resolved = await resolveInsideRoot(root, relative(root, real).split(sep).join('/')).catch(() => {
      throw refused;
    });
    const head = await readResolvedFile(resolved, { maxBytes: maxBytes + 1 }).catch((err: unknown) => {
      // Directories, devices, FIFOs and files swapped while opening: one refusal.
      throw err instanceof AppError ? refused : err;
    });
    if (head.size > maxBytes) throw new AppError('FILE_TOO_LARGE', `the image is larger than ${maxBytes} bytes`, 'Attach a smaller image.');
    return head.bytes;
  }
  throw refused;
}
