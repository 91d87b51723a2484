/** Liveness facts every client may ask for: is tmux reachable, do the stores open. */
import type { BrokerInfo, Readiness } from '@terminal-mcp/contract';
import { publicProcedure, router } from '../trpc.js';

export const healthRouter = router({
  ready: publicProcedure.query(async ({ ctx }): Promise<Readiness> => {
    const tmux = await ctx.deps.tmux.health();
    const stores = ctx.deps.stores.check();
    return { ready: tmux.ok && stores.every((s) => s.ok), tmux, stores };
  }),

  info: publicProcedure.query(({ ctx }): BrokerInfo => ({
    version: ctx.deps.info.version,
    pid: process.pid,
    started_at: ctx.deps.info.startedAt.toISOString(),
    tmux_socket: ctx.deps.info.tmuxSocket,
  })),
});
