/** What the gateway lists to whom: the operator's `gateway.toolsets` from config.yaml. The
 * gateway cannot read the config file (it runs as its own user), so it asks here, caches the
 * answer and decides per caller itself (docs/tools.md "Toolsets"). A read of the config only. */
import type { GatewayToolsetsConfig } from '@terminal-mcp/contract';
import { servedTo } from '../trpc.js';

export const catalogue = {
  toolsets: servedTo('gateway').query(({ ctx }): GatewayToolsetsConfig => ctx.deps.config.gateway.toolsets),
};
