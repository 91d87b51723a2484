/** Everything the MCP gateway may ask the broker. Reading this file is auditing the
 * gateway's privilege. */
import { auditRouter } from '../procedures/audit.js';
import { bindingsRouter } from '../procedures/bindings.js';
import { healthRouter } from '../procedures/health.js';
import { inputRouter } from '../procedures/input.js';
import { oauthServerProcedures } from '../procedures/oauth.js';
import { sessionsRouter } from '../procedures/sessions.js';
import { sourceRouter } from '../procedures/source.js';
import { waitRouter } from '../procedures/wait.js';
import { router } from '../trpc.js';

export const gatewayRouter = router({
  /** The input audit log (read-only). */
  audit: auditRouter,
  /** Named, identity-pinned bindings: bind/unbind change bindings.db only. */
  bindings: bindingsRouter,
  health: healthRouter,
  /** Guarded, audited input: every send passes the input gates, the audit log, the pane
   * lease and an identity re-check. Never on the observer's socket. */
  input: inputRouter,
  /** The gateway's OAuth authorization server (TERMINAL_MCP_GATEWAY_PUBLIC_URL): the same
   * procedures as the observer's, with the gateway's redirect rules and scopes. */
  oauth: router(oauthServerProcedures),
  sessions: sessionsRouter,
  /** Read-only project sources (git history, working-tree files): queries only. */
  source: sourceRouter,
  /** Wait for a session's status (read-gated queries; PENDING + resume token after 20 s). */
  wait: waitRouter,
});
export type GatewayRouter = typeof gatewayRouter;
