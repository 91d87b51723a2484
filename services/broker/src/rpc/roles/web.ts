/** Everything the dashboard's server code may ask the broker. */
import { healthRouter } from '../procedures/health.js';
import { sessionsRouter } from '../procedures/sessions.js';
import { router } from '../trpc.js';

export const webRouter = router({
  health: healthRouter,
  sessions: sessionsRouter,
});
export type WebRouter = typeof webRouter;
