import { error } from '@sveltejs/kit';
import { requirePageUser } from '$lib/server/auth.js';
import { toUiError } from '$lib/server/failure.js';
import { ackAction, loadSupervisor, parkAction, pauseAction, reviewAction } from '$lib/server/supervisor-view.js';
import type { Actions, PageServerLoad } from './$types';

export const load: PageServerLoad = async (event) => {
  requirePageUser(event);
  event.depends('app:supervisor');
  try {
    return { page: await loadSupervisor(), failure: null };
  } catch (err) {
    const { status, error: failure } = toUiError(err);
    if (failure.code === 'BROKER_UNAVAILABLE') return { page: null, failure };
    error(status, 'could not load the supervisor');
  }
};

export const actions: Actions = {
  ack: ackAction,
  review: reviewAction,
  pause: pauseAction,
  park: parkAction,
};
