/** Schemas of the session registry: every tmux session the broker has seen, kept after it
 * is gone so an operator (and `terminal_list_sessions(include_dead=true)`) can see what
 * happened to it. Field names are snake_case (public MCP API). */
import { z } from 'zod';

/** ACTIVE: in tmux now. KILLED: gone while its tmux server kept running. MISSING: gone
 * with its server (restarted or stopped), so how it ended is unknown. DELETED: a tombstone
 * left by `terminal-mcp-registry cleanup --apply`. */
export const SESSION_REGISTRY_STATUSES = ['ACTIVE', 'MISSING', 'KILLED', 'DELETED'] as const;
export type SessionRegistryStatus = (typeof SESSION_REGISTRY_STATUSES)[number];

export const deadSessionSchema = z.object({
  /** `node:session` for a node's session (docs/nodes.md), bare for this host's. */
  name: z.string(),
  /** The node the session was on; absent: this host. */
  node: z.string().optional(),
  /** `node:$id` for a node's session. */
  session_id: z.string(),
  created: z.string(),
  status: z.enum(SESSION_REGISTRY_STATUSES),
  first_seen: z.string(),
  last_seen: z.string(),
  status_changed_at: z.string(),
  conversation_id: z.string().nullable(),
  notes: z.string().nullable(),
  /** The last redacted screen, only for a session this caller may read by name now. */
  last_screen: z.string().nullable(),
  last_screen_at: z.string().nullable(),
  deleted_by: z.string().nullable(),
  /** Set when a transcript of it is kept: read it with include_dead: true; the dashboard
   * views and downloads it by this id (docs/transcripts.md). */
  transcript_id: z.string().optional(),
});
export type DeadSession = z.infer<typeof deadSessionSchema>;
