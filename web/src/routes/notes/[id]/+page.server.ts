import { error } from '@sveltejs/kit';
import { noteIdSchema } from '@terminal-mcp/contract';
import { requirePageUser } from '$lib/server/auth.js';
import { broker } from '$lib/server/broker.js';
import { toUiError } from '$lib/server/failure.js';
import { addAttachmentAction, deleteNoteAction, removeAttachmentAction, restoreNoteAction, saveNoteAction } from '$lib/server/notes-actions.js';
import type { Actions, PageServerLoad } from './$types';

export const load: PageServerLoad = async (event) => {
  requirePageUser(event);
  const id = noteIdSchema.safeParse(Number(event.params.id));
  if (!id.success) error(404, 'no such note');
  try {
    return { note: await broker().notes.get.query({ id: id.data }), failure: null };
  } catch (err) {
    const { status, error: failure } = toUiError(err);
    if (failure.code === 'BROKER_UNAVAILABLE') return { note: null, failure };
    error(status, failure.code === 'NOTE_NOT_FOUND' ? 'no such note' : 'could not load the note');
  }
};

export const actions: Actions = {
  save: saveNoteAction,
  delete: deleteNoteAction,
  restore: restoreNoteAction,
  addAttachment: addAttachmentAction,
  removeAttachment: removeAttachmentAction,
};
