/** Liveness facts for the services' readiness endpoints: is tmux reachable, do the stores
 * open. (The dashboard never asks; no client asks for the broker's pid or version.) */
import type { Readiness } from '@terminal-mcp/contract';
import { servedTo } from '../trpc.js';

export const health = {
  ready: servedTo('gateway', 'observer').query(async ({ ctx }): Promise<Readiness> => {
    const tmux = await ctx.deps.tmux.health();
    const stores = ctx.deps.stores.check();
    return { ready: tmux.ok && stores.every((s) => s.ok), tmux, stores };
  }),
};
