import { z } from 'zod';

export const readinessSchema = z.object({
  ready: z.boolean(),
  tmux: z.object({ ok: z.boolean(), detail: z.string() }),
  stores: z.array(z.object({ name: z.string(), ok: z.boolean() })),
  /** Set only by a broker that listens but is still being built (effects/early-sockets.ts). */
  starting: z.literal(true).optional(),
});
export type Readiness = z.infer<typeof readinessSchema>;

export const brokerInfoSchema = z.object({
  version: z.string(),
  pid: z.number().int(),
  started_at: z.string(),
  tmux_socket: z.string().nullable(),
});
export type BrokerInfo = z.infer<typeof brokerInfoSchema>;
