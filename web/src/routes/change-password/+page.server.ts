import { fail, redirect } from '@sveltejs/kit';
import { AUTH_LIMITS } from '@terminal-mcp/contract';
import { requirePageUser, requireSessionToken, requireUser } from '$lib/server/auth.js';
import { broker } from '$lib/server/broker.js';
import { toUiError } from '$lib/server/failure.js';
import { clearSessionCookie, setSessionCookie } from '$lib/server/session-cookie.js';
import type { UiError } from '$lib/ui-error.js';
import type { Actions, PageServerLoad } from './$types';

export const load: PageServerLoad = (event) => {
  const user = requirePageUser(event, { allowPendingPasswordChange: true });
  return { forced: user.mustChangePassword, passwordMin: AUTH_LIMITS.passwordMin, passwordMax: AUTH_LIMITS.passwordMax };
};

export const actions: Actions = {
  default: async (event) => {
    requireUser(event, { allowPendingPasswordChange: true });
    const token = requireSessionToken(event);
    const form = await event.request.formData();
    const currentPassword = String(form.get('current') ?? '');
    const newPassword = String(form.get('new') ?? '');
    const confirm = String(form.get('confirm') ?? '');
    const max = AUTH_LIMITS.passwordTransportMax;
    if (!currentPassword || !newPassword || currentPassword.length > max || newPassword.length > max) {
      return fail(400, { error: { code: 'INVALID_ARGUMENT', detail: `the password must be at least ${AUTH_LIMITS.passwordMin} characters long` } satisfies UiError });
    }
    if (newPassword !== confirm) return fail(400, { mismatch: true });
    let issued;
    try {
      issued = await broker().auth.changePassword.mutate({ token, currentPassword, newPassword, sourceIp: event.getClientAddress().slice(0, AUTH_LIMITS.sourceIpMax) });
    } catch (err) {
      const { status, error } = toUiError(err);
      if (error.code === 'UNAUTHENTICATED') {
        clearSessionCookie(event.cookies, event.url);
        redirect(303, '/login');
      }
      return fail(status, { error });
    }
    // Every other session of this user ended; this browser gets the new one.
    setSessionCookie(event.cookies, event.url, issued.token, issued.expiresAt);
    redirect(303, '/');
  },
};
