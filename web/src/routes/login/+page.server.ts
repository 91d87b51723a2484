import { fail, redirect } from '@sveltejs/kit';
import { AUTH_LIMITS } from '@terminal-mcp/contract';
import { broker } from '$lib/server/broker.js';
import { toUiError } from '$lib/server/failure.js';
import { setSessionCookie } from '$lib/server/session-cookie.js';
import type { UiError } from '$lib/ui-error.js';
import type { Actions, PageServerLoad } from './$types';

export const load: PageServerLoad = ({ locals }) => {
  if (locals.user) redirect(303, locals.user.mustChangePassword ? '/change-password' : '/');
  return {};
};

export const actions: Actions = {
  // The one action that needs no signed-in user. Unknown user and wrong password get the
  // same answer from the broker; throttling is keyed on the address our server vouches
  // for (getClientAddress: the socket, or the trusted proxy's X-Forwarded-For).
  default: async (event) => {
    const form = await event.request.formData();
    const username = String(form.get('username') ?? '').trim().slice(0, AUTH_LIMITS.attemptedUsernameMax);
    const password = String(form.get('password') ?? '');
    if (!username || !password || password.length > AUTH_LIMITS.passwordTransportMax) {
      return fail(400, { username, error: { code: 'UNAUTHENTICATED' } satisfies UiError });
    }
    let issued;
    try {
      issued = await broker().auth.login.mutate({ username, password, sourceIp: event.getClientAddress().slice(0, AUTH_LIMITS.sourceIpMax) });
    } catch (err) {
      const { status, error } = toUiError(err);
      return fail(status, { username, error });
    }
    setSessionCookie(event.cookies, event.url, issued.token, issued.expiresAt);
    redirect(303, issued.mustChangePassword ? '/change-password' : '/');
  },
};
