import { error } from '@sveltejs/kit';
import { accessAction } from '$lib/server/access-action.js';
import { requirePageUser } from '$lib/server/auth.js';
import { toUiError } from '$lib/server/failure.js';
import { loadSessions } from '$lib/server/sessions-view.js';
import type { Actions, PageServerLoad } from './$types';

export const load: PageServerLoad = async (event) => {
  requirePageUser(event);
  event.depends('app:sessions');
  try {
    return { page: await loadSessions({ withStatus: false }), failure: null };
  } catch (err) {
    const { status, error: failure } = toUiError(err);
    if (failure.code === 'BROKER_UNAVAILABLE') return { page: null, failure };
    error(status, 'could not load sessions');
  }
};

export const actions: Actions = {
  access: accessAction,
};
