/**
 * Server-sent events for the supervisor page: one `event` line per supervisor event as the
 * broker records it (its waitEvents blocks up to 20 s per call, woken by the event, so
 * nothing polls). The page reloads its data on each. Ends when the browser goes away.
 */
import { broker } from '$lib/server/broker.js';
import { requireUser } from '$lib/server/auth.js';
import type { RequestHandler } from './$types';

export const GET: RequestHandler = async (event) => {
  requireUser(event);
  const signal = event.request.signal;
  let after = (await broker().supervisorDashboard.listEvents.query({ limit: 1 })).events[0]?.id ?? 0;
  const encoder = new TextEncoder();
  const stream = new ReadableStream<Uint8Array>({
    async start(controller) {
      controller.enqueue(encoder.encode(': supervisor events\n\n'));
      while (!signal.aborted) {
        try {
          const r = await broker().supervisorDashboard.waitEvents.query({ after_id: after, timeout_s: 20 }, { signal });
          after = r.next_after_id;
          for (const e of r.events) controller.enqueue(encoder.encode(`data: ${JSON.stringify({ id: e.id, event_type: e.event_type })}\n\n`));
          if (r.events.length === 0) controller.enqueue(encoder.encode(': keep-alive\n\n'));
        } catch {
          break;
        }
      }
      try {
        controller.close();
      } catch {
        // already closed by the client going away
      }
    },
  });
  return new Response(stream, { headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-store' } });
};
