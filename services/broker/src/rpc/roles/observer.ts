/** Everything the read-only observer may ask the broker. This router must contain no
 * procedure that changes tmux, git, grants, notes or policy: not "refuses" — cannot name.
 * A test lists it and fails on any mutation other than the OAuth token procedures. */
import { healthRouter } from '../procedures/health.js';
import { sessionsRouter } from '../procedures/sessions.js';
import { router } from '../trpc.js';

export const observerRouter = router({
  health: healthRouter,
  sessions: sessionsRouter,
});
export type ObserverRouter = typeof observerRouter;
