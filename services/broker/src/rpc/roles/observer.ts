/** Everything the read-only observer may ask the broker. This router must contain no
 * procedure that changes tmux, git, grants, notes or policy: not "refuses" — cannot name.
 * A test lists it and fails on any mutation other than the OAuth token procedures. */
import { healthRouter } from '../procedures/health.js';
import { oauthServerProcedures } from '../procedures/oauth.js';
import { sessionsRouter } from '../procedures/sessions.js';
import { sourceRouter } from '../procedures/source.js';
import { router } from '../trpc.js';

export const observerRouter = router({
  health: healthRouter,
  sessions: sessionsRouter,
  /** Read-only project sources (git history, working-tree files): queries only. */
  source: sourceRouter,
  /** The OAuth authorization server's state (clients, codes, tokens): the only mutations
   * this socket can name. Approving an authorization checks the operator's password in the
   * same call, so there is no separate login oracle here. */
  oauth: router(oauthServerProcedures),
});
export type ObserverRouter = typeof observerRouter;
