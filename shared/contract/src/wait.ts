/** Schemas of the wait tools: block until a session's status enters one of the wanted
 * states, or return PENDING with a resume token. Public MCP API: snake_case, every
 * string and array capped.
 *
 * Time budget: a wait lasts at most WAIT_LIMITS.maxTimeoutSeconds (20 s), well inside
 * the gateway's 30 s broker-call budget and the HTTP client's timeouts; a longer wait is
 * a chain of resumes, each its own short call. */
import { z } from 'zod';
import { paneArg, sessionNameSchema, sessionStatusResultSchema, sessionStatusSchema } from './sessions.js';

export const WAIT_LIMITS = {
  maxTimeoutSeconds: 20,
  defaultTimeoutSeconds: 20,
  /** Resume tokens are 43 base64url characters after a short prefix. */
  resumeTokenMax: 128,
  /** How long an unused resume token stays valid (each PENDING answer renews it). */
  resumeTokenTtlSeconds: 600,
} as const;

export const waitStateSchema = z.enum([...sessionStatusSchema.options, 'PENDING']);
export type WaitState = z.infer<typeof waitStateSchema>;

const timeoutSeconds = z
  .number()
  .min(0)
  .max(WAIT_LIMITS.maxTimeoutSeconds)
  .optional()
  .describe(`seconds to wait before answering PENDING (0-${WAIT_LIMITS.maxTimeoutSeconds}, default ${WAIT_LIMITS.defaultTimeoutSeconds})`);

export const waitForStateInputShape = {
  // A `binding` alternative joins here once bindings exist (resolved by the broker to the
  // binding's pinned session identity).
  session: sessionNameSchema.describe('exact session name'),
  pane: paneArg,
  states: z
    .array(sessionStatusSchema)
    .min(1)
    .max(sessionStatusSchema.options.length)
    .describe('return as soon as the status is one of these, e.g. ["IDLE", "WAITING_INPUT"]'),
  timeout_s: timeoutSeconds,
};
export const waitForStateInputSchema = z.object(waitForStateInputShape).strict();
export type WaitForStateInput = z.infer<typeof waitForStateInputSchema>;

export const resumeTokenSchema = z.string().min(1).max(WAIT_LIMITS.resumeTokenMax);

export const resumeWaitInputShape = {
  resume_token: resumeTokenSchema.describe('the resume_token of a PENDING answer'),
  timeout_s: timeoutSeconds,
};
export const resumeWaitInputSchema = z.object(resumeWaitInputShape).strict();
export type ResumeWaitInput = z.infer<typeof resumeWaitInputSchema>;

export const waitResultSchema = z.object({
  state: waitStateSchema.describe('the status that was reached, or PENDING when the timeout passed first'),
  session: z.string(),
  session_id: z.string(),
  states: z.array(sessionStatusSchema).describe('the states waited for'),
  status: sessionStatusResultSchema.describe('the last status seen, with its evidence'),
  waited_ms: z.number().int().describe('time spent in this call'),
  resume_token: z.string().nullable().describe('with PENDING: for terminal_resume_wait; else null'),
  resume_expires_at: z.string().nullable().describe('when resume_token expires (ISO 8601), or null'),
});
export type WaitResult = z.infer<typeof waitResultSchema>;
