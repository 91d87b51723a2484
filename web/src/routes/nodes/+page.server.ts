import { error } from '@sveltejs/kit';
import { requirePageUser } from '$lib/server/auth.js';
import { broker } from '$lib/server/broker.js';
import { toUiError } from '$lib/server/failure.js';
import type { PageServerLoad } from './$types';

/** Other hosts: each node's health badge and its sessions, grouped by node. */
export const load: PageServerLoad = async (event) => {
  requirePageUser(event);
  try {
    return { overview: await broker().nodes.overview.query(), failure: null };
  } catch (err) {
    const { status, error: failure } = toUiError(err);
    if (failure.code === 'BROKER_UNAVAILABLE') return { overview: null, failure };
    error(status, 'could not load the nodes');
  }
};
