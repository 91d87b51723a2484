/** Everything the dashboard's server code may ask the broker. */
import { authRouter } from '../procedures/auth.js';
import { grantsRouter } from '../procedures/grants.js';
import { auditWebRouter } from '../procedures/audit.js';
import { bindingsRouter } from '../procedures/bindings.js';
import { healthRouter } from '../procedures/health.js';
import { inputRouter } from '../procedures/input.js';
import { liveRouter } from '../procedures/live.js';
import { oauthAdminRouter } from '../procedures/oauth.js';
import { sessionsRouter } from '../procedures/sessions.js';
import { waitRouter } from '../procedures/wait.js';
import { router } from '../trpc.js';

export const webRouter = router({
  auth: authRouter,
  /** Per-session read/input grants: the dashboard is the only place access is granted. */
  grants: grantsRouter,
  /** The input audit log and the read-audit summary (read-only). */
  audit: auditWebRouter,
  /** Named, identity-pinned bindings: bind/unbind change bindings.db only. */
  bindings: bindingsRouter,
  health: healthRouter,
  /** Guarded, audited input: every send passes the input gates, the audit log, the pane
   * lease and an identity re-check. Never on the observer's socket. */
  input: inputRouter,
  /** Live pane output: redacted screen frames over WebSocket, read-gated per frame. */
  live: liveRouter,
  /** The observer's OAuth clients and grants: list and revoke. */
  oauthAdmin: oauthAdminRouter,
  sessions: sessionsRouter,
  /** Wait for a session's status (read-gated queries). */
  wait: waitRouter,
});
export type WebRouter = typeof webRouter;
