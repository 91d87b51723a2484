/** The dashboard's page of other hosts: each node's health (as terminal_node_health) with
 * its sessions under it, so a node that is down shows as down, never as empty. */
import { z } from 'zod';
import { nodeHealthSchema } from './nodes.js';
import { sessionStatusSchema } from './sessions.js';

export const nodeOverviewSessionSchema = z.object({
  /** `node:session`. */
  name: z.string(),
  session_id: z.string(),
  last_activity: z.string(),
  read_allowed: z.boolean(),
  /** Only for a session the node's read rules let the operator read. */
  current_command: z.string().nullable(),
  status: sessionStatusSchema.nullable(),
  reason: z.string().nullable(),
});
export type NodeOverviewSession = z.infer<typeof nodeOverviewSessionSchema>;

export const nodeOverviewSchema = z.object({
  /** This host (its sessions are on the dashboard's first page). */
  local: nodeHealthSchema,
  nodes: z.array(nodeHealthSchema.extend({ sessions: z.array(nodeOverviewSessionSchema) })),
});
export type NodeOverview = z.infer<typeof nodeOverviewSchema>;
