import { redirect, type RequestHandler } from '@sveltejs/kit';
import { describeBrokerFailure } from '@terminal-mcp/broker-client';
import { requireUser } from '$lib/server/auth.js';
import { broker } from '$lib/server/broker.js';
import { logEvent } from '$lib/server/log.js';
import { clearSessionCookie } from '$lib/server/session-cookie.js';

/** Ends the broker session and drops the cookie. Same-origin only (hooks), like every
 * POST, so another page cannot sign the operator out. */
export const POST: RequestHandler = async (event) => {
  if (event.locals.sessionToken) {
    requireUser(event, { allowPendingPasswordChange: true });
    try {
      await broker().auth.logout.mutate({ token: event.locals.sessionToken });
    } catch (err) {
      logEvent('warn', { event: 'web.logout_failed', code: describeBrokerFailure(err).code });
    }
  }
  clearSessionCookie(event.cookies, event.url);
  redirect(303, '/login');
};
