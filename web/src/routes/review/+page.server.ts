import { error } from '@sveltejs/kit';
import { requirePageUser } from '$lib/server/auth.js';
import { toUiError } from '$lib/server/failure.js';
import { decideAction, loadReview } from '$lib/server/review-view.js';
import type { Actions, PageServerLoad } from './$types';

export const load: PageServerLoad = async (event) => {
  requirePageUser(event);
  try {
    return { page: await loadReview(), failure: null };
  } catch (err) {
    const { status, error: failure } = toUiError(err);
    if (failure.code === 'BROKER_UNAVAILABLE') return { page: null, failure };
    error(status, 'could not load the review queue');
  }
};

export const actions: Actions = {
  decide: decideAction,
};
