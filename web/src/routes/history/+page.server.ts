import { error } from '@sveltejs/kit';
import { requirePageUser } from '$lib/server/auth.js';
import { toUiError } from '$lib/server/failure.js';
import { loadHistory, parseCursor } from '$lib/server/history-view.js';
import { revokeOrphanedGrantAction } from '$lib/server/orphan-grant-action.js';
import type { Actions, PageServerLoad } from './$types';

export const load: PageServerLoad = async (event) => {
  requirePageUser(event);
  try {
    return { history: await loadHistory(parseCursor(event.url.searchParams.get('cursor'))), failure: null };
  } catch (err) {
    const { status, error: failure } = toUiError(err);
    if (failure.code === 'BROKER_UNAVAILABLE') return { history: null, failure };
    error(status, 'could not load the access history');
  }
};

export const actions: Actions = {
  revokeOrphan: revokeOrphanedGrantAction,
};
