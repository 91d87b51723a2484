import { error } from '@sveltejs/kit';
import { requirePageUser } from '$lib/server/auth.js';
import { toUiError } from '$lib/server/failure.js';
import { loadLifecycle, pinnedAction, startAction } from '$lib/server/lifecycle-actions.js';
import type { Actions, PageServerLoad } from './$types';

/** Launch profiles and the sessions they started (docs/tools.md, "Session lifecycle"). */
export const load: PageServerLoad = async (event) => {
  requirePageUser(event);
  event.depends('app:launch');
  try {
    return { page: await loadLifecycle(), failure: null };
  } catch (err) {
    const { status, error: failure } = toUiError(err);
    if (failure.code === 'BROKER_UNAVAILABLE') return { page: null, failure };
    error(status, 'could not load launch profiles');
  }
};

export const actions: Actions = {
  start: startAction,
  close: pinnedAction('close'),
  restart: pinnedAction('restart'),
};
