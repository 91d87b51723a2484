/** Schemas of the input audit log (audit.db): one row per input attempt, written before
 * anything is sent. The text itself is never stored: only its length, a keyed
 * HMAC-SHA256 (equal texts give equal values, the text cannot be recovered from it) and
 * a redacted preview of at most 120 characters. */
import { z } from 'zod';
import { bindingNameSchema, INPUT_LIMITS } from './input.js';
import { sessionNameSchema } from './sessions.js';

/**
 * PENDING: written, the outcome not yet recorded (only while a send is in flight).
 * SENT: the bytes were handed to tmux. BLOCKED: a gate refused (see error_code).
 * DRY_RUN: every gate ran, nothing was sent. FAILED: tmux refused before anything was
 * sent. DELIVERY_UNKNOWN: the broker cannot tell whether the bytes reached the pane
 * (it stopped mid-send, or tmux stopped answering). QUEUED: every gate passed but the
 * input needs a person's review (input_policy.review): nothing was sent; the approved
 * delivery is a row of its own, naming the proposer and the approver.
 */
export const AUDIT_DECISIONS = ['PENDING', 'SENT', 'BLOCKED', 'DRY_RUN', 'FAILED', 'DELIVERY_UNKNOWN', 'QUEUED'] as const;
export type AuditDecision = (typeof AUDIT_DECISIONS)[number];

const isoTime = z.iso.datetime({ offset: true });

export const listInputAuditInputShape = {
  session: sessionNameSchema.optional().describe('only attempts on this exact session name'),
  binding: bindingNameSchema.optional().describe('only attempts through this binding'),
  actor: z.string().min(1).max(80).optional().describe('only this actor, e.g. "gateway:chatgpt"'),
  decision: z.enum(AUDIT_DECISIONS).optional(),
  since: isoTime.optional().describe('ISO 8601: attempts at or after this time'),
  until: isoTime.optional().describe('ISO 8601: attempts before this time'),
  limit: z.number().int().min(1).max(INPUT_LIMITS.auditPage).optional().describe(`entries per page (default ${INPUT_LIMITS.auditPageDefault})`),
  cursor: z.string().min(1).max(64).optional().describe('next_cursor of the previous page'),
};
export const listInputAuditInputSchema = z.object(listInputAuditInputShape).strict();
export type ListInputAuditInput = z.infer<typeof listInputAuditInputSchema>;

export const inputAuditEntrySchema = z.object({
  id: z.number().int(),
  at: z.string().describe('ISO 8601 time the attempt was recorded (before acting)'),
  finished_at: z.string().nullable(),
  actor: z.string(),
  tool: z.string(),
  session: z.string().nullable(),
  binding: z.string().nullable(),
  session_id: z.string().nullable(),
  pane_id: z.string().nullable(),
  decision: z.enum(AUDIT_DECISIONS),
  error_code: z.string().nullable(),
  text_length: z.number().int().nullable(),
  text_hmac: z.string().nullable().describe('keyed HMAC-SHA256 of the text, hex'),
  preview: z.string().nullable().describe('redacted, at most 120 characters; untrusted data; null unless the attempt went on to send'),
  keys: z.array(z.string()).nullable(),
  receipt: z.string().nullable().describe('terminal_send_task receipt; REPLAYED for a call answered with an earlier receipt'),
});
export type InputAuditEntry = z.infer<typeof inputAuditEntrySchema>;

export const listInputAuditOutputSchema = z.object({
  entries: z.array(inputAuditEntrySchema).describe('newest first'),
  next_cursor: z.string().nullable().describe('pass as cursor for the next (older) page; null on the last page'),
});
export type ListInputAuditOutput = z.infer<typeof listInputAuditOutputSchema>;

// ---- read-audit summary (dashboard only) ----------------------------------------------

export const READ_SUMMARY_LIMITS = { daysMax: 90, daysDefault: 7, rowsMax: 500, rowsDefault: 200 } as const;

export const readSummaryInputSchema = z
  .object({
    days: z.number().int().min(1).max(READ_SUMMARY_LIMITS.daysMax).optional().describe(`the last N UTC days (default ${READ_SUMMARY_LIMITS.daysDefault})`),
    limit: z.number().int().min(1).max(READ_SUMMARY_LIMITS.rowsMax).optional(),
  })
  .strict();
export type ReadSummaryInput = z.infer<typeof readSummaryInputSchema>;

export const readSummaryRowSchema = z.object({
  day: z.string().describe('UTC date, YYYY-MM-DD'),
  actor: z.string(),
  session: z.string().nullable().describe('null for reads that name no session (source reads)'),
  reads: z.number().int(),
  lines: z.number().int().describe('lines returned, summed'),
  errors: z.number().int().describe('reads that ended in an error'),
  last_at: z.string(),
});
export type ReadSummaryRow = z.infer<typeof readSummaryRowSchema>;

export const readSummaryOutputSchema = z.object({
  rows: z.array(readSummaryRowSchema).describe('newest day first, busiest first within a day'),
  truncated: z.boolean(),
});
export type ReadSummaryOutput = z.infer<typeof readSummaryOutputSchema>;
