/** Everything the MCP gateway may ask the broker. Reading this file is auditing the
 * gateway's privilege. */
import { healthRouter } from '../procedures/health.js';
import { sessionsRouter } from '../procedures/sessions.js';
import { router } from '../trpc.js';

export const gatewayRouter = router({
  health: healthRouter,
  sessions: sessionsRouter,
});
export type GatewayRouter = typeof gatewayRouter;
