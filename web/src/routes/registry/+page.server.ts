import { error } from '@sveltejs/kit';
import { requirePageUser } from '$lib/server/auth.js';
import { broker } from '$lib/server/broker.js';
import { toUiError } from '$lib/server/failure.js';
import { forgetAction } from '$lib/server/lifecycle-actions.js';
import type { Actions, PageServerLoad } from './$types';

/** Sessions the registry remembers that tmux no longer has (and what became of them). */
export const load: PageServerLoad = async (event) => {
  requirePageUser(event);
  try {
    const [listed, lifecycle] = await Promise.all([broker().sessions.list.query({ include_dead: true }), broker().lifecycle.profiles.query()]);
    // Remove is offered only while permissions.session_lifecycle is on (the broker refuses otherwise).
    return { dead: listed.dead_sessions ?? [], tmux: listed.tmux, canRemove: lifecycle.enabled, failure: null };
  } catch (err) {
    const { status, error: failure } = toUiError(err);
    // tmux not running at all is no failure (the broker answers from its registry); a
    // server that runs but does not answer is.
    if (failure.code === 'BROKER_UNAVAILABLE' || failure.code === 'TMUX_UNAVAILABLE') return { dead: null, tmux: null, canRemove: false, failure };
    error(status, 'could not load the session registry');
  }
};

export const actions: Actions = {
  forget: forgetAction,
};
