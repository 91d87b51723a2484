import { error } from '@sveltejs/kit';
import { requirePageUser } from '$lib/server/auth.js';
import { broker } from '$lib/server/broker.js';
import { toUiError } from '$lib/server/failure.js';
import type { PageServerLoad } from './$types';

/** Sessions the registry remembers that tmux no longer has (and what became of them). */
export const load: PageServerLoad = async (event) => {
  requirePageUser(event);
  try {
    const listed = await broker().sessions.list.query({ include_dead: true });
    return { dead: listed.dead_sessions ?? [], tmux: listed.tmux, failure: null };
  } catch (err) {
    const { status, error: failure } = toUiError(err);
    // tmux not running at all is no failure (the broker answers from its registry); a
    // server that runs but does not answer is.
    if (failure.code === 'BROKER_UNAVAILABLE' || failure.code === 'TMUX_UNAVAILABLE') return { dead: null, tmux: null, failure };
    error(status, 'could not load the session registry');
  }
};
