import { error } from '@sveltejs/kit';
import type { NodeOverview } from '@terminal-mcp/contract';
import { accessAction } from '$lib/server/access-action.js';
import { requirePageUser } from '$lib/server/auth.js';
import { broker } from '$lib/server/broker.js';
import { toUiError } from '$lib/server/failure.js';
import { sendAction } from '$lib/server/send-action.js';
import { loadSessions } from '$lib/server/sessions-view.js';
import type { Actions, PageServerLoad } from './$types';

/** Each node's health and sessions, for the compact sections under this host's cards (the
 * Nodes page's data): streamed, not awaited, so a node whose health probe waits (up to 5 s)
 * never holds up this host's cards. null when the broker could not say. */
const nodesOf = (): Promise<NodeOverview['nodes'] | null> =>
  broker()
    .nodes.overview.query()
    .then((o) => o.nodes)
    .catch(() => null);

export const load: PageServerLoad = async (event) => {
  requirePageUser(event);
  event.depends('app:sessions');
  try {
    const nodes = nodesOf();
    return { page: await loadSessions({ withStatus: true }), failure: null, nodes };
  } catch (err) {
    const { status, error: failure } = toUiError(err);
    if (failure.code === 'BROKER_UNAVAILABLE') return { page: null, failure, nodes: Promise.resolve(null) };
    error(status, 'could not load sessions');
  }
};

export const actions: Actions = {
  send: sendAction,
  access: accessAction,
};
