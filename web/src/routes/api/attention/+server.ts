import { json } from '@sveltejs/kit';
import { attentionCount, attentionLevel } from '$lib/attention.js';
import { requireUser } from '$lib/server/auth.js';
import { broker } from '$lib/server/broker.js';
import { toUiError } from '$lib/server/failure.js';
import { loadSessions } from '$lib/server/sessions-view.js';
import type { RequestHandler } from './$types';

/** The header's attention count for pages other than the dashboard: how many readable
 * sessions wait for input or err, and which are waiting. Names only of sessions the web
 * role may read; no screen content. */
export const GET: RequestHandler = async (event) => {
  requireUser(event);
  try {
    const { sessions } = await loadSessions({ withStatus: true });
    // The latest notices (already redacted by the broker), for the browser's notifications.
    const notices = (await broker().human.notices.query({}).catch(() => [])).slice(-20);
    return json({ count: attentionCount(sessions), waiting: sessions.filter((s) => attentionLevel(s) === 'waiting').map((s) => s.name), notices });
  } catch (err) {
    const { status, error } = toUiError(err);
    return json({ error }, { status });
  }
};
