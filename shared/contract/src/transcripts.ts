/** Schemas of transcript reads: output since a cursor, and asciicast v2 export
 * (docs/transcripts.md). A cursor is opaque to clients; the broker decodes and checks it. */
import { z } from 'zod';
import { paneArg, sessionNameSchema } from './sessions.js';

export const TRANSCRIPT_LIMITS = {
  cursor: 512,
  maxReadSinceLines: 2000,
  defaultReadSinceLines: 200,
  /** Bytes of asciicast text one export returns; the dashboard serves the whole file. */
  exportBytes: 256 * 1024,
  /** write_failed spans one read_since lists (the newest; each is one disk-full episode). */
  maxWriteFailedSpans: 20,
} as const;

export const cursorSchema = z.string().min(1).max(TRANSCRIPT_LIMITS.cursor).describe('from an earlier read');
export const includeDeadSchema = z.boolean().optional().describe('read a DEAD session too');

export const readSinceInputShape = {
  session: sessionNameSchema.describe('exact session name'),
  cursor: cursorSchema,
  pane: paneArg,
  max_lines: z.number().int().min(1).max(TRANSCRIPT_LIMITS.maxReadSinceLines).optional().describe(`default ${TRANSCRIPT_LIMITS.defaultReadSinceLines}`),
  include_dead: includeDeadSchema,
};
export const readSinceInputSchema = z.object(readSinceInputShape).strict();
export type ReadSinceInput = z.infer<typeof readSinceInputSchema>;

export const readSinceOutputSchema = z.object({
  session: z.string(),
  session_id: z.string(),
  text: z.string().describe('redacted lines written after the cursor; untrusted data'),
  line_count: z.number().int(),
  redactions: z.number().int(),
  cursor: z.string().describe('pass to the next terminal_read_since'),
  dropped: z.boolean(),
  dropped_lines: z.number().int().optional(),
  dropped_reason: z
    .enum(['rotated', 'write_failed', 'unrecorded', 'max_lines'])
    .optional()
    .describe('rotated: the cursor is before the oldest kept output; write_failed: output was lost because transcript writes failed (a full disk; write_failed_spans says when and how much); unrecorded: output the broker did not record (it was not running, the session was not readable, or output came faster than it could be redacted); max_lines: only the newest lines are returned'),
  write_failed_spans: z
    .array(z.object({ from: z.string().max(40), to: z.string().max(40), lines: z.number().int() }))
    .max(TRANSCRIPT_LIMITS.maxWriteFailedSpans)
    .optional()
    .describe('where output after the cursor was lost because transcript writes failed: from/to (ISO times) and the lines not written'),
  pending: z.string().optional().describe('the unfinished last line (a prompt); returned again once complete'),
  dead: z.boolean(),
});
export type ReadSinceOutput = z.infer<typeof readSinceOutputSchema>;

export const exportTranscriptInputShape = {
  session: sessionNameSchema.describe('exact session name'),
  pane: paneArg,
  include_dead: includeDeadSchema,
};
export const exportTranscriptInputSchema = z.object(exportTranscriptInputShape).strict();
export type ExportTranscriptInput = z.infer<typeof exportTranscriptInputSchema>;

export const exportTranscriptOutputSchema = z.object({
  session: z.string(),
  session_id: z.string(),
  cast: z.string().describe('asciicast v2: a header line, then [seconds, "o", text] lines'),
  events: z.number().int(),
  truncated: z.boolean().describe('only the newest events fit; the dashboard downloads the whole file'),
  dead: z.boolean(),
});
export type ExportTranscriptOutput = z.infer<typeof exportTranscriptOutputSchema>;

/** The dashboard's view and download: a transcript by its id (`transcript_id` of a gone
 * session), as asciicast text or as plain lines. */
export const transcriptIdSchema = z.string().regex(/^\d{1,10}-\d{1,10}-\d{1,12}$/, 'not a transcript id');
export const transcriptFileInputSchema = z.object({ transcript_id: transcriptIdSchema, format: z.enum(['cast', 'text']) }).strict();
export type TranscriptFileInput = z.infer<typeof transcriptFileInputSchema>;
