import { z } from 'zod';

export const readinessSchema = z.object({
  ready: z.boolean(),
  tmux: z.object({ ok: z.boolean(), detail: z.string() }),
  // detail: why a store is not ok (a damaged audit.db names its file and the next step).
  stores: z.array(z.object({ name: z.string().max(40), ok: z.boolean(), detail: z.string().max(600).optional() })),
  /** Set only by a broker that listens but is still being built (effects/early-sockets.ts). */
  starting: z.literal(true).optional(),
  // Transcript writes failing now (a full disk): output is not being recorded. Readiness
  // stays true (reads and input work); `terminal-mcp status` shows it. `opening`: sessions
  // whose recording is asked for and not started yet (a fresh broker opens them one at a
  // time behind callers' commands); absent once every recording is open.
  recording: z
    .object({ failing: z.boolean(), since: z.string().max(40).optional(), sessions: z.number().int().optional(), lines_lost: z.number().int().optional(), opening: z.number().int().optional() })
    .optional(),
  // The notifier process (notifier.sock): whether it is connected now, and how many notice
  // deliveries wait for it. Readiness does not depend on it: notices wait while it is down.
  notifier: z.object({ connected: z.boolean(), waiting: z.number().int().min(0) }).optional(),
});
export type Readiness = z.infer<typeof readinessSchema>;

export const brokerInfoSchema = z.object({
  version: z.string(),
  pid: z.number().int(),
  started_at: z.string(),
  tmux_socket: z.string().nullable(),
});
export type BrokerInfo = z.infer<typeof brokerInfoSchema>;
