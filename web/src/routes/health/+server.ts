import { json } from '@sveltejs/kit';
import { webHealth } from '$lib/server/web-health.js';
import type { RequestHandler } from './$types';

/** Liveness for probes: public, reveals nothing sensitive (see web-health.ts). */
export const GET: RequestHandler = async () => {
  const { status, body } = await webHealth();
  return json(body, { status, headers: { 'cache-control': 'no-store' } });
};
