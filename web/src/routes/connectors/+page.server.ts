import { error } from '@sveltejs/kit';
import { requirePageUser } from '$lib/server/auth.js';
import { revokeClientAction, revokeGrantAction, revokeUserAction } from '$lib/server/connector-actions.js';
import { loadConnectors } from '$lib/server/connectors-view.js';
import { toUiError } from '$lib/server/failure.js';
import type { Actions, PageServerLoad } from './$types';

export const load: PageServerLoad = async (event) => {
  requirePageUser(event);
  try {
    return { connectors: await loadConnectors(), failure: null };
  } catch (err) {
    const { status, error: failure } = toUiError(err);
    if (failure.code === 'BROKER_UNAVAILABLE') return { connectors: null, failure };
    error(status, 'could not load connectors');
  }
};

export const actions: Actions = {
  revokeClient: revokeClientAction,
  revokeGrant: revokeGrantAction,
  revokeUser: revokeUserAction,
};
