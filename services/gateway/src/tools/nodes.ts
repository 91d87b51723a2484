/** Node health as a read-only tool: this host and every node of `nodes:` (other hosts over ssh). */
import { nodeHealthInputSchema, nodeHealthInputShape, nodeHealthOutputSchema, type NodeHealthOutput } from '@terminal-mcp/contract';
import { renderRecords } from '@terminal-mcp/mcp-kit';
import { defineTool, READ_ONLY_ANNOTATIONS, type GatewayTool } from './define-tool.js';

export const NODE_HEALTH_COLUMNS = ['node', 'transport', 'execution', 'reason', 'next_retry_at', 'last_success', 'latency_ms', 'server_pid', 'hint'] as const;

export function renderNodeHealth(r: NodeHealthOutput): string {
  return renderRecords(r.nodes, NODE_HEALTH_COLUMNS, { keep: ['node', 'transport', 'execution'], empty: 'No nodes.' }).join('\n');
}

export const nodeTools: readonly GatewayTool[] = [
  defineTool({
    name: 'terminal_node_health',
    title: 'Node health',
    description:
      'Health of this host ("local") and of each configured node (another host reached over ssh; its sessions are named node:session): ' +
      'transport (connecting, up, backing_off with next_retry_at, failed: needs the operator, see hint) and execution ' +
      '(EXECUTION_OK only after a bounded probe ran a command through the node\'s tmux just now), last success, latency.',
    inputShape: nodeHealthInputShape,
    inputSchema: nodeHealthInputSchema,
    outputSchema: nodeHealthOutputSchema,
    annotations: READ_ONLY_ANNOTATIONS,
    run: (args, { broker, signal }) => broker.nodes.health.query(args, { signal }),
    render: renderNodeHealth,
  }),
];
