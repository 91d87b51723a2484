/** Nodes: other hosts whose tmux the broker reaches over OpenSSH, and their health. */
import { z } from 'zod';

export const nodeNameSchema = z.string().regex(/^[a-z][a-z0-9_-]{0,31}$/, 'node name: a lowercase letter, then up to 31 of a-z 0-9 _ -');

export const nodeTransportStateSchema = z.enum(['connecting', 'up', 'backing_off', 'failed']);
export const nodeExecutionStateSchema = z.enum(['EXECUTION_OK', 'EXECUTION_FAILED', 'NOT_PROBED']);

export const nodeHealthSchema = z.object({
  node: z.string().describe('node name; "local" is this host'),
  transport: nodeTransportStateSchema.describe('connecting, up, backing_off (retries by itself at next_retry_at) or failed (needs the operator: see hint)'),
  execution: nodeExecutionStateSchema.describe("EXECUTION_OK only when a bounded probe ran a command through the node's tmux and read its answer back just now"),
  reason: z.string().optional().describe('sanitized category of the last failure'),
  hint: z.string().optional().describe('what to do about it'),
  next_retry_at: z.string().optional().describe('ISO 8601 time of the next connection attempt'),
  last_success: z.string().optional().describe('ISO 8601 time of the last successful probe'),
  latency_ms: z.number().int().optional().describe('round trip of the probe'),
  server_pid: z.number().int().optional().describe("pid of the node's tmux server (part of every session identity)"),
});
export type NodeHealth = z.infer<typeof nodeHealthSchema>;

export const nodeHealthInputShape = {
  node: nodeNameSchema.optional().describe('one node (or "local"); default: every node'),
};
export const nodeHealthInputSchema = z.object(nodeHealthInputShape).strict();

export const nodeHealthOutputSchema = z.object({ nodes: z.array(nodeHealthSchema) });
export type NodeHealthOutput = z.infer<typeof nodeHealthOutputSchema>;

/** A node as a session listing shows it: a down node is down, never "no sessions"; a node
 * whose tmux did not answer within the list deadline is `slow`, listed with its last
 * listing's rows, and its reason says from when. (No field of its own for that time: every
 * byte here is in the catalogue of both front ends.) */
export const listedNodeSchema = z.object({
  node: z.string(),
  state: z.enum(['up', 'down', 'slow']),
  reason: z.string().optional(),
  hint: z.string().optional(),
});
export type ListedNode = z.infer<typeof listedNodeSchema>;
