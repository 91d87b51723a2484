/**
 * The notes' image files: `<state dir>/notes_attachments/YYYY/MM/<uuid>.<ext>`. The name
 * is generated here and the extension follows the type sniffed from the bytes; no caller
 * ever names a path. Directories are 0700 and files 0600, like the stores. A relative path
 * read back from notes.db is re-checked against that exact layout before it is opened.
 */
import { randomUUID } from 'node:crypto';
import { constants } from 'node:fs';
import { mkdir, open, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { AppError } from '@terminal-mcp/contract';
import type { ImageType } from '../../policy/image-type.js';

export const ATTACHMENTS_DIR = 'notes_attachments';
const STORED_PATH = /^\d{4}\/\d{2}\/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.(png|jpg|gif|webp)$/;

export const attachmentsRoot = (stateDir: string) => join(stateDir, ATTACHMENTS_DIR);

/** Writes a new file (never overwrites one) and answers its generated id and path. */
export async function writeAttachmentFile(stateDir: string, bytes: Uint8Array, type: ImageType, now: Date): Promise<{ id: string; relPath: string }> {
  const id = randomUUID();
  const month = `${now.getUTCFullYear()}/${String(now.getUTCMonth() + 1).padStart(2, '0')}`;
  const relPath = `${month}/${id}.${type.ext}`;
  await mkdir(join(attachmentsRoot(stateDir), month), { recursive: true, mode: 0o700 });
  await writeFile(join(attachmentsRoot(stateDir), relPath), bytes, { flag: 'wx', mode: 0o600 });
  return { id, relPath };
}

function storedPath(stateDir: string, relPath: string): string {
  if (!STORED_PATH.test(relPath)) throw new Error('attachment path in notes.db does not have the stored layout');
  return join(attachmentsRoot(stateDir), relPath);
}

export async function readAttachmentFile(stateDir: string, relPath: string, maxBytes: number): Promise<Buffer> {
  let handle;
  try {
    handle = await open(storedPath(stateDir, relPath), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new AppError('NOTE_NOT_FOUND', 'the attachment file is missing from the state directory');
    throw err;
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw new Error('attachment path is not a regular file');
    if (stat.size > maxBytes) throw new AppError('FILE_TOO_LARGE', 'the attachment file is larger than an attachment may be');
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}

/** Removes the file; one that is already gone is not an error. */
export async function removeAttachmentFile(stateDir: string, relPath: string): Promise<void> {
  try {
    await unlink(storedPath(stateDir, relPath));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
}
