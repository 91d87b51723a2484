/**
 * A gone session's transcript as an asciicast v2 file, for the signed-in operator only
 * (requireUser: the layout check does not protect endpoints). The broker applies the read
 * rule and serves only redacted text; it is sent as a download, never rendered.
 */
import { error, type RequestHandler } from '@sveltejs/kit';
import { transcriptIdSchema } from '@terminal-mcp/contract';
import { requireUser } from '$lib/server/auth.js';
import { broker } from '$lib/server/broker.js';
import { toUiError } from '$lib/server/failure.js';

/** A file name from a session name: anything but a few safe characters becomes `_`. */
const fileNameOf = (name: string) => `${name.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 80) || 'session'}.cast`;

export const GET: RequestHandler = async (event) => {
  requireUser(event);
  const id = transcriptIdSchema.safeParse(event.params.id);
  if (!id.success) error(404, 'no such transcript');
  let file;
  try {
    file = await broker().transcripts.file.query({ transcript_id: id.data, format: 'cast' });
  } catch (err) {
    const { status, error: failure } = toUiError(err);
    error(failure.code === 'SESSION_NOT_FOUND' ? 404 : status, 'could not load the transcript');
  }
  return new Response(file.cast ?? '', {
    headers: {
      'content-type': 'application/x-asciicast',
      'content-disposition': `attachment; filename="${fileNameOf(file.name)}"`,
      'x-content-type-options': 'nosniff',
      'content-security-policy': "default-src 'none'; sandbox",
      'cache-control': 'private, no-store',
    },
  });
};
