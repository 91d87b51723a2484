import { error } from '@sveltejs/kit';
import { requirePageUser } from '$lib/server/auth.js';
import { toUiError } from '$lib/server/failure.js';
import { createNoteAction, loadNotesPage, moveNoteAction } from '$lib/server/notes-actions.js';
import type { Actions, PageServerLoad } from './$types';

export const load: PageServerLoad = async (event) => {
  requirePageUser(event);
  try {
    return { page: await loadNotesPage(event.url.searchParams), failure: null };
  } catch (err) {
    const { status, error: failure } = toUiError(err);
    if (failure.code === 'BROKER_UNAVAILABLE') return { page: null, failure };
    error(status, 'could not load the notes');
  }
};

export const actions: Actions = {
  create: createNoteAction,
  move: moveNoteAction,
};
