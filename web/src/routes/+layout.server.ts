import { LANG_COOKIE } from '$lib/i18n/index.js';
import type { LayoutServerLoad } from './$types';

/** Who is signed in and which language to render: no authorisation here (pages, actions
 * and endpoints each check for themselves). */
export const load: LayoutServerLoad = ({ locals, cookies }) => ({
  user: locals.user ? { username: locals.user.username, mustChangePassword: locals.user.mustChangePassword } : null,
  lang: locals.lang,
  langRemembered: cookies.get(LANG_COOKIE) !== undefined,
  brokerUnavailable: locals.brokerUnavailable,
});
