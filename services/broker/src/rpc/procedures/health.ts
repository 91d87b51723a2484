/** Liveness facts for the services' readiness endpoints (is tmux reachable, do the stores
 * open), and the broker's own identity for the operator's lifecycle commands
 * (`terminal-mcp status|doctor|stop`, effects/launch/broker-probe.ts, over gateway.sock:
 * the operator's user is in every socket's group). The dashboard's /health asks `ready`. */
import type { BrokerInfo, Readiness } from '@terminal-mcp/contract';
import { servedTo } from '../trpc.js';

export const health = {
  ready: servedTo('gateway', 'observer', 'web').query(async ({ ctx }): Promise<Readiness> => {
    const tmux = await ctx.deps.tmux.health();
    const stores = ctx.deps.stores.check();
    const failing = ctx.deps.transcripts.writeFailing();
    const opening = ctx.deps.transcripts.opening();
    const recording = {
      ...(failing === null ? { failing: false } : { failing: true, since: new Date(failing.sinceMs).toISOString(), sessions: failing.sessions, lines_lost: failing.lines }),
      // Still warming up (a start at 200 sessions opens their pipes one at a time behind
      // callers): reads and input already work, so readiness stays true.
      ...(opening > 0 ? { opening } : {}),
    };
    return { ready: tmux.ok && stores.every((s) => s.ok), tmux, stores, recording, notifier: ctx.deps.noticeOutbox.notifierState() };
  }),

  info: servedTo('gateway').query(({ ctx }): BrokerInfo => ({
    version: ctx.deps.info.version,
    pid: process.pid,
    started_at: ctx.deps.info.startedAt.toISOString(),
    tmux_socket: ctx.deps.info.tmuxSocket,
  })),
};
