/** Node health (`terminal_node_health`, `terminal-mcp status`): for this host and each
 * node of `nodes:`, the transport state and whether a bounded probe just ran a command
 * through its tmux and read the answer back (EXECUTION_OK). Names no session and reads no
 * pane; served on gateway.sock (the tool and `terminal-mcp status`).
 *
 * The dashboard's nodes page (`dashboardNodes.overview`, an operator on web.sock): the
 * same health, with each node's sessions under it and the status of those the node's read
 * rules allow, read through the node's own gate and reader like every node read. */
import { AppError, nodeHealthInputSchema, readAppErrorData, type NodeHealth, type NodeHealthOutput, type NodeOverview, type NodeOverviewSession } from '@terminal-mcp/contract';
import { LOCAL_NODE } from '../../config/nodes-schema.js';
import { listNodeSessions } from '../../nodes/node-reads.js';
import { operatorProcedure } from '../operator.js';
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

/** Status reads per page load at most (each is a read of the pane); rows past it show no status. */
const OVERVIEW_STATUS_READS = 100;

export const dashboardNodes = {
  overview: operatorProcedure.query(async ({ ctx }): Promise<NodeOverview> => {
    const set = ctx.deps.nodes;
    const [local, health, listed] = await Promise.all([localHealth(ctx), set?.health() ?? [], set === undefined ? undefined : listNodeSessions(set, {})]);
    let reads = 0;
    // A slow node's rows come from its last listing: no status read there (each would wait
    // for the stalled node's tmux), the row says why it has none.
    const slow = new Set((listed?.nodes ?? []).filter((n) => n.state === 'slow').map((n) => n.node));
    const rows = await Promise.all(
      (listed?.sessions ?? []).map(async (s): Promise<NodeOverviewSession> => {
        const row: NodeOverviewSession = { name: s.name, session_id: s.session_id, last_activity: s.last_activity, read_allowed: s.read_allowed, current_command: null, status: null, reason: null };
        if (slow.has(s.name.slice(0, s.name.indexOf(':')))) return { ...row, reason: 'node slow' };
        if (!s.read_allowed || reads++ >= OVERVIEW_STATUS_READS) return row;
        try {
          const st = await ctx.deps.hosts.read(s.name, (host, session) => (host.node === undefined ? Promise.reject(new AppError('SESSION_NOT_FOUND', 'not a node session', '')) : host.reader.status(session)));
          return { ...row, current_command: st.current_command, status: st.status, reason: st.reason };
        } catch (err) {
          return { ...row, reason: readAppErrorData(err)?.code ?? 'INTERNAL' };
        }
      }),
    );
    return { local, nodes: health.map((h) => ({ ...h, sessions: rows.filter((r) => r.name.startsWith(`${h.node}:`)) })) };
  }),
};
