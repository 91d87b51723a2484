/** Node health (`terminal_node_health`, `terminal-mcp status`): for this host and each
 * node of `nodes:`, the transport state and whether a bounded probe just ran a command
 * through its tmux and read the answer back (EXECUTION_OK). Names no session and reads no
 * pane; served on gateway.sock (the tool and `terminal-mcp status`). */
import { AppError, nodeHealthInputSchema, type NodeHealth, type NodeHealthOutput } from '@terminal-mcp/contract';
import { LOCAL_NODE } from '../../config/nodes-schema.js';
import { servedTo } from '../trpc.js';
import type { BrokerContext } from '../context.js';

/** This host, probed like a node: its tmux adapter's status query, timed. */
async function localHealth(ctx: BrokerContext): Promise<NodeHealth> {
  const started = Date.now();
  const h = await ctx.deps.tmux.health();
  if (!h.ok) return { node: LOCAL_NODE, transport: ctx.deps.tmux.noServer() ? 'failed' : 'backing_off', execution: 'EXECUTION_FAILED', reason: 'tmux not reachable', hint: h.detail };
  const pid = /server pid (\d+)/.exec(h.detail)?.[1];
  return {
    node: LOCAL_NODE,
    transport: 'up',
    execution: 'EXECUTION_OK',
    last_success: new Date().toISOString(),
    latency_ms: Date.now() - started,
    ...(pid !== undefined && { server_pid: Number(pid) }),
  };
}

export const nodes = {
  health: servedTo('gateway')
    .input(nodeHealthInputSchema)
    .query(async ({ ctx, input }): Promise<NodeHealthOutput> => {
      const set = ctx.deps.nodes;
      if (input.node === LOCAL_NODE) return { nodes: [await localHealth(ctx)] };
      if (input.node !== undefined && set?.get(input.node) === undefined) {
        throw new AppError('NOT_FOUND', 'no such node', `Configured nodes: ${[LOCAL_NODE, ...(set?.names() ?? [])].join(', ')}.`);
      }
      const [local, remote] = await Promise.all([input.node === undefined ? localHealth(ctx) : null, set?.health(input.node) ?? []]);
      return { nodes: [...(local === null ? [] : [local]), ...remote] };
    }),
};
