/** `/history`'s revoke button for a grant whose session is gone: the same broker
 * `grants.revoke` the access dialog uses, recorded under the signed-in operator. */
import { fail, type RequestEvent } from '@sveltejs/kit';
import { LIMITS } from '@terminal-mcp/contract';
import type { UiError } from '../ui-error.js';
import { requireUser } from './auth.js';
import { broker } from './broker.js';
import { toUiError } from './failure.js';

export async function revokeOrphanedGrantAction(event: RequestEvent) {
  requireUser(event);
  const session = (await event.request.formData()).get('session');
  if (typeof session !== 'string' || session.length === 0 || session.length > LIMITS.sessionName) {
    return fail(400, { error: { code: 'INVALID_ARGUMENT', detail: 'session' } satisfies UiError });
  }
  try {
    const { revoked } = await broker().grants.revoke.mutate({ session });
    return { orphanRevoked: { session, revoked } };
  } catch (err) {
    const { status, error } = toUiError(err);
    return fail(status, { error });
  }
}
