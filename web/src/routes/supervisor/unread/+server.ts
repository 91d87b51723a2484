/** The header badge's count: unacknowledged supervisor events (at most 200 counted). */
import { json } from '@sveltejs/kit';
import { broker } from '$lib/server/broker.js';
import { requireUser } from '$lib/server/auth.js';
import type { RequestHandler } from './$types';

export const GET: RequestHandler = async (event) => {
  requireUser(event);
  const { events } = await broker().supervisorDashboard.listEvents.query({ unacknowledged_only: true, limit: 200 });
  return json({ count: events.length }, { headers: { 'cache-control': 'no-store' } });
};
