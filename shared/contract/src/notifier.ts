/** What the notifier (services/notifier, notifier.sock) and the broker say to each other:
 * the notifier claims pending deliveries (each one HTTP request the broker built: the
 * channel's URL, headers and an already redacted body) and reports how each ended. The
 * broker decides what is sent, to which channel and within which budget; the notifier
 * only sends (docs/architecture.md, "The notifier"). */
import { z } from 'zod';

/** At most this many deliveries per claim. */
export const NOTIFIER_CLAIM_MAX = 20;
/** The longest a claim waits for a delivery to appear (a long poll). */
export const NOTIFIER_WAIT_MAX_MS = 20_000;

export const notifierClaimInputSchema = z
  .object({
    max: z.number().int().min(1).max(NOTIFIER_CLAIM_MAX).default(NOTIFIER_CLAIM_MAX),
    wait_ms: z.number().int().min(0).max(NOTIFIER_WAIT_MAX_MS).default(0),
  })
  .strict();

export const pendingDeliverySchema = z.object({
  id: z.number().int().min(1),
  /** The channel's name (`supervisor.notify` for the supervisor webhook): deliveries of one
   * target are sent one at a time, in order. */
  target: z.string().max(64),
  url: z.string().max(2048),
  headers: z.record(z.string().max(64), z.string().max(512)),
  body: z.string().max(64 * 1024),
  timeout_ms: z.number().int().min(1).max(60_000),
  /** Further attempts after a network error, a timeout, a 5xx or a 429. */
  retries: z.number().int().min(0).max(10),
});
export type PendingDelivery = z.infer<typeof pendingDeliverySchema>;

export const notifierClaimOutputSchema = z.object({ deliveries: z.array(pendingDeliverySchema).max(NOTIFIER_CLAIM_MAX) });
export type NotifierClaimOutput = z.infer<typeof notifierClaimOutputSchema>;

export const DELIVERY_REPORT_OUTCOMES = ['SENT', 'FAILED'] as const;
export const deliveryReportSchema = z
  .object({
    id: z.number().int().min(1),
    outcome: z.enum(DELIVERY_REPORT_OUTCOMES),
    http_status: z.number().int().min(100).max(599).nullable(),
    /** Why it failed, in a few words (`timed out`, `connection failed`, `HTTP 503`). */
    reason: z.string().max(200).nullable(),
    attempts: z.number().int().min(1).max(11),
  })
  .strict();
export type DeliveryReport = z.infer<typeof deliveryReportSchema>;
