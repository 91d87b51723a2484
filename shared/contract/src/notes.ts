/** Schemas of the notes/ideas store: things worth keeping (text, the agent's analysis, a
 * source URL, tags, an optional project, a status up to "applied"), findable by words and
 * carrying image attachments. Field names are snake_case (public MCP API). Every string
 * and array is capped; argument descriptions are short because every byte of a tool
 * schema is paid in every conversation. */
import { z } from 'zod';

export const NOTE_LIMITS = {
  title: 200,
  body: 20_000,
  analysis: 20_000,
  url: 2048,
  tags: 20,
  tag: 40,
  project: 64,
  appliedWhere: 500,
  caption: 200,
  query: 500,
  /** Words of a search query that are used; the rest are ignored. */
  queryTerms: 16,
  pageMax: 100,
  /** Decoded bytes of one image. The broker's request cap is sized for this in base64. */
  attachmentBytes: 4 * 1024 * 1024,
  attachmentsPerNote: 20,
  /** Quotas per identity (policy/authority.ts), so no client can fill the operator's disk:
   * live notes, and the bytes of the attachments it added. QUOTA_EXCEEDED past them. */
  notesPerActor: 2000,
  attachmentBytesPerActor: 256 * 1024 * 1024,
  sourcePath: 4096,
} as const;

/** Kanban columns, in order. `applied`: the idea was put to use (note_mark_applied). */
export const NOTE_STATUSES = ['new', 'exploring', 'planned', 'applied', 'dropped'] as const;
export type NoteStatus = (typeof NOTE_STATUSES)[number];
export const noteStatusSchema = z.enum(NOTE_STATUSES);

/** Image types the store accepts, decided from the bytes themselves (magic numbers). */
export const ATTACHMENT_MIME_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const;
export type AttachmentMimeType = (typeof ATTACHMENT_MIME_TYPES)[number];

/** Note ids are SQLite rowids; a billion is far more notes than one operator keeps (and a
 * short bound keeps the tool schema short). */
export const noteIdSchema = z.number().int().min(1).max(1e9);
/** Attachment ids are generated uuids (also the file's name on disk). */
export const attachmentIdSchema = z.string().regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/, 'attachment id: a uuid');

/** Lowercase words of letters, digits, `.`, `_`, `-` (Vietnamese letters allowed).
 * Checked with refine, not a JSON-schema pattern: the rule is in the message, and every
 * byte of a tool schema is paid in every conversation. */
export const noteTagSchema = z
  .string()
  .max(NOTE_LIMITS.tag)
  .trim()
  .toLowerCase()
  .refine((t) => /^[\p{L}\p{N}][\p{L}\p{N}._-]{0,39}$/u.test(t), 'tag: 1-40 letters, digits, . _ -');
export const noteProjectSchema = z
  .string()
  .trim()
  .min(1)
  .max(NOTE_LIMITS.project)
  .refine((p) => /^[^\p{Cc}]+$/u.test(p), 'project: no control characters');
export const noteUrlSchema = z
  .string()
  .max(NOTE_LIMITS.url)
  .refine((u) => /^https?:\/\/[^\s]+$/i.test(u) && URL.canParse(u), 'source_url: an http(s) URL');

/** A NUL ends a C string: kept in a title it cut what SQLite tools, logs and terminals show
 * (issue 45). No note field takes one. */
const NO_NUL = (v: string) => !v.includes('\u0000');
const title = z.string().trim().min(1).max(NOTE_LIMITS.title).refine(NO_NUL, 'title: no NUL character');
const body = z.string().max(NOTE_LIMITS.body).refine(NO_NUL, 'body: no NUL character');
const analysis = z.string().max(NOTE_LIMITS.analysis).refine(NO_NUL, 'analysis: no NUL character');
const tags = z.array(noteTagSchema).max(NOTE_LIMITS.tags);

export const noteCreateInputShape = {
  title,
  body: body.optional(),
  analysis: analysis.optional().describe('your own analysis'),
  source_url: noteUrlSchema.optional(),
  tags: tags.optional(),
  project: noteProjectSchema.optional(),
  status: noteStatusSchema.optional().describe('default new'),
};
export const noteCreateInputSchema = z.object(noteCreateInputShape).strict();
export type NoteCreateInput = z.infer<typeof noteCreateInputSchema>;

export const noteIdInputShape = { id: noteIdSchema };
export const noteIdInputSchema = z.object(noteIdInputShape).strict();
export type NoteIdInput = z.infer<typeof noteIdInputSchema>;

export const noteUpdateInputShape = {
  id: noteIdSchema,
  title: title.optional(),
  body: body.optional(),
  analysis: analysis.optional(),
  source_url: noteUrlSchema.nullable().optional().describe('null clears'),
  tags: tags.optional().describe('replaces all tags'),
  status: noteStatusSchema.optional(),
};
export const noteUpdateInputSchema = z
  .object(noteUpdateInputShape)
  .strict()
  .refine((i) => Object.keys(i).length > 1, { message: 'name at least one field to change', path: ['id'] });
export type NoteUpdateInput = z.infer<typeof noteUpdateInputSchema>;

const filters = {
  status: noteStatusSchema.optional(),
  tag: noteTagSchema.optional(),
  project: noteProjectSchema.optional(),
};

export const noteSearchInputShape = {
  query: z.string().max(NOTE_LIMITS.query).describe('plain words (no query syntax)'),
  ...filters,
  limit: z.number().int().min(1).max(50).optional().describe('default 10'),
};
export const noteSearchInputSchema = z.object(noteSearchInputShape).strict();
export type NoteSearchInput = z.infer<typeof noteSearchInputSchema>;

export const noteListInputShape = {
  ...filters,
  deleted: z.boolean().optional().describe('deleted notes instead'),
  limit: z.number().int().min(1).max(NOTE_LIMITS.pageMax).optional().describe('default 20'),
  before_id: noteIdSchema.optional().describe('next_before_id of the last page'),
};
export const noteListInputSchema = z.object(noteListInputShape).strict();
export type NoteListInput = z.infer<typeof noteListInputSchema>;

export const noteAddAttachmentInputShape = {
  id: noteIdSchema,
  data_base64: z
    .string()
    .max(Math.ceil(NOTE_LIMITS.attachmentBytes / 3) * 4 + 4)
    .optional()
    .describe('image bytes, base64'),
  source_path: z.string().min(1).max(NOTE_LIMITS.sourcePath).optional().describe('absolute host path under notes.attachment_source_roots'),
  caption: z.string().max(NOTE_LIMITS.caption).optional(),
};
export const noteAddAttachmentInputSchema = z
  .object(noteAddAttachmentInputShape)
  .strict()
  .refine((i) => (i.data_base64 === undefined) !== (i.source_path === undefined), { message: 'give exactly one of data_base64 or source_path', path: ['data_base64'] });
export type NoteAddAttachmentInput = z.infer<typeof noteAddAttachmentInputSchema>;

/** The dashboard's upload form: image bytes in band only (the dashboard never names a
 * host file), sent by the web server for the signed-in operator. */
export const noteUploadAttachmentInputSchema = z
  .object({ id: noteIdSchema, data_base64: noteAddAttachmentInputShape.data_base64.unwrap(), caption: noteAddAttachmentInputShape.caption })
  .strict();
export type NoteUploadAttachmentInput = z.infer<typeof noteUploadAttachmentInputSchema>;

export const attachmentIdInputShape = { attachment_id: attachmentIdSchema };
export const attachmentIdInputSchema = z.object(attachmentIdInputShape).strict();
export type AttachmentIdInput = z.infer<typeof attachmentIdInputSchema>;

export const noteLinkInputShape = { id: noteIdSchema, project: noteProjectSchema.nullable().describe('null unlinks') };
export const noteLinkInputSchema = z.object(noteLinkInputShape).strict();
export type NoteLinkInput = z.infer<typeof noteLinkInputSchema>;

export const noteMarkAppliedInputShape = { id: noteIdSchema, where: z.string().max(NOTE_LIMITS.appliedWhere).optional().describe('where it was applied') };
export const noteMarkAppliedInputSchema = z.object(noteMarkAppliedInputShape).strict();
export type NoteMarkAppliedInput = z.infer<typeof noteMarkAppliedInputSchema>;

export const noteFacetsInputSchema = z.object({}).strict();

export const noteAttachmentSchema = z.object({
  id: z.string(),
  note_id: z.number(),
  mime_type: z.enum(ATTACHMENT_MIME_TYPES),
  size: z.number(),
  sha256: z.string(),
  caption: z.string().nullable(),
  created_at: z.string(),
});
export type NoteAttachment = z.infer<typeof noteAttachmentSchema>;

export const noteSchema = z.object({
  id: z.number(),
  title: z.string(),
  body: z.string(),
  analysis: z.string(),
  source_url: z.string().nullable(),
  tags: z.array(z.string()),
  project: z.string().nullable(),
  status: noteStatusSchema,
  applied_at: z.string().nullable(),
  applied_where: z.string().nullable(),
  deleted_at: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
  created_by: z.string(),
  updated_by: z.string(),
  attachments: z.array(noteAttachmentSchema),
});
export type Note = z.infer<typeof noteSchema>;

/** A note without its long text: what lists and search hits carry. */
export const noteSummarySchema = noteSchema.pick({ id: true, title: true, tags: true, project: true, status: true, deleted_at: true, updated_at: true }).extend({
  attachment_count: z.number(),
  /** The first attachment, for gallery cards. */
  cover_attachment_id: z.string().nullable(),
});
export type NoteSummary = z.infer<typeof noteSummarySchema>;

export const noteSearchHitSchema = noteSummarySchema.extend({
  /** Text around the matched words; matches are wrapped in [ and ]. */
  snippet: z.string(),
  /** bm25 rank (lower is better), for ordering only. */
  rank: z.number(),
});
export type NoteSearchHit = z.infer<typeof noteSearchHitSchema>;

export const noteSearchOutputSchema = z.object({ hits: z.array(noteSearchHitSchema), terms: z.array(z.string()) });
export type NoteSearchOutput = z.infer<typeof noteSearchOutputSchema>;

export const noteListOutputSchema = z.object({ notes: z.array(noteSummarySchema), next_before_id: z.number().nullable() });
export type NoteListOutput = z.infer<typeof noteListOutputSchema>;

export const noteFacetsOutputSchema = z.object({
  total: z.number(),
  deleted: z.number(),
  statuses: z.array(z.object({ status: noteStatusSchema, count: z.number() })),
  tags: z.array(z.object({ tag: z.string(), count: z.number() })),
  projects: z.array(z.object({ project: z.string(), count: z.number() })),
});
export type NoteFacetsOutput = z.infer<typeof noteFacetsOutputSchema>;

export const noteAttachmentOutputSchema = noteAttachmentSchema;
export const removeAttachmentOutputSchema = z.object({ attachment_id: z.string(), note_id: z.number(), removed: z.literal(true) });
export type RemoveAttachmentOutput = z.infer<typeof removeAttachmentOutputSchema>;

/** The dashboard's attachment route: the bytes with the type the store recorded. */
export const attachmentContentSchema = z.object({ mime_type: z.enum(ATTACHMENT_MIME_TYPES), data_base64: z.string(), size: z.number() });
export type AttachmentContent = z.infer<typeof attachmentContentSchema>;
