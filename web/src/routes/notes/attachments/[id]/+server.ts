/**
 * A note's image, for the signed-in operator only (requireUser: the layout check does not
 * protect endpoints). The Content-Type is the one the broker recorded from the bytes'
 * magic number; nosniff and a sandboxing CSP keep a browser from treating it as anything
 * else, and only these image types are ever served inline.
 */
import { error, type RequestHandler } from '@sveltejs/kit';
import { ATTACHMENT_MIME_TYPES, attachmentIdSchema } from '@terminal-mcp/contract';
import { requireUser } from '$lib/server/auth.js';
import { broker } from '$lib/server/broker.js';
import { toUiError } from '$lib/server/failure.js';

export const GET: RequestHandler = async (event) => {
  requireUser(event);
  const id = attachmentIdSchema.safeParse(event.params.id);
  if (!id.success) error(404, 'no such attachment');
  let content;
  try {
    content = await broker().notes.attachment.query({ attachment_id: id.data });
  } catch (err) {
    const { status, error: failure } = toUiError(err);
    error(failure.code === 'NOTE_NOT_FOUND' ? 404 : status, 'could not load the attachment');
  }
  const image = (ATTACHMENT_MIME_TYPES as readonly string[]).includes(content.mime_type);
  return new Response(Buffer.from(content.data_base64, 'base64'), {
    headers: {
      'content-type': image ? content.mime_type : 'application/octet-stream',
      'content-disposition': image ? 'inline' : 'attachment',
      'x-content-type-options': 'nosniff',
      'content-security-policy': "default-src 'none'; sandbox",
      'cache-control': 'private, no-store',
    },
  });
};
