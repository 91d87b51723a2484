import { error } from '@sveltejs/kit';
import { transcriptIdSchema } from '@terminal-mcp/contract';
import { requirePageUser } from '$lib/server/auth.js';
import { broker } from '$lib/server/broker.js';
import { toUiError } from '$lib/server/failure.js';
import type { PageServerLoad } from './$types';

/** A gone session's transcript, read-only: its newest lines as redacted plain text. */
export const load: PageServerLoad = async (event) => {
  requirePageUser(event);
  const id = transcriptIdSchema.safeParse(event.params.id);
  if (!id.success) error(404, 'no such transcript');
  try {
    const file = await broker().transcripts.file.query({ transcript_id: id.data, format: 'text' });
    return { id: id.data, name: file.name, sessionId: file.session_id, text: file.text ?? '', truncated: file.truncated };
  } catch (err) {
    const { status, error: failure } = toUiError(err);
    error(failure.code === 'SESSION_NOT_FOUND' ? 404 : status, 'could not load the transcript');
  }
};
