import { takeoverInput } from '$lib/server/takeover-input.js';
import type { RequestHandler } from './$types';

/** Take-over keystrokes from the full view (same-origin only: hooks.server.ts). */
export const POST: RequestHandler = (event) => takeoverInput(event);
