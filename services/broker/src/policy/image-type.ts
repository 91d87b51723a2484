/**
 * The type of an attachment is what its first bytes say, never its name or a caller's
 * claim: a `.png` whose bytes are HTML is not an image and is refused, so the dashboard can
 * never be made to serve script under an image's name.
 */
import type { AttachmentMimeType } from '@terminal-mcp/contract';

export interface ImageType {
  mime: AttachmentMimeType;
  /** Extension of the stored file, chosen by the type. */
  ext: 'png' | 'jpg' | 'gif' | 'webp';
}

const startsWith = (bytes: Uint8Array, sig: readonly number[], at = 0) => bytes.length >= at + sig.length && sig.every((b, i) => bytes[at + i] === b);
const ascii = (s: string) => [...s].map((c) => c.charCodeAt(0));

/** The image type of `bytes` by magic number, or null when it is none we accept. */
export function sniffImageType(bytes: Uint8Array): ImageType | null {
  // PNG: the 8-byte signature followed by the IHDR chunk.
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]) && startsWith(bytes, ascii('IHDR'), 12)) return { mime: 'image/png', ext: 'png' };
  // JPEG: SOI then a marker segment.
  if (startsWith(bytes, [0xff, 0xd8, 0xff]) && bytes.length > 4) return { mime: 'image/jpeg', ext: 'jpg' };
  if ((startsWith(bytes, ascii('GIF87a')) || startsWith(bytes, ascii('GIF89a'))) && bytes.length > 13) return { mime: 'image/gif', ext: 'gif' };
  // WebP: a RIFF container whose form type is WEBP, with a VP8/VP8L/VP8X chunk.
  if (startsWith(bytes, ascii('RIFF')) && startsWith(bytes, ascii('WEBP'), 8) && startsWith(bytes, ascii('VP8'), 12)) return { mime: 'image/webp', ext: 'webp' };
  return null;
}
