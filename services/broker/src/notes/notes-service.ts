/**
 * The notes capability behind every role's procedures: it validates what the store cannot
 * (a live note, the attachment cap, the bytes' own type), writes the store and the image
 * files, and turns records into the public shapes. Who acts comes from the context (the
 * socket's role plus the client's name, or the dashboard operator), never from the input.
 */
import { createHash } from 'node:crypto';
import {
  AppError,
  NOTE_LIMITS,
  type AttachmentContent,
  type AttachmentMimeType,
  type Note,
  type NoteAddAttachmentInput,
  type NoteAttachment,
  type NoteCreateInput,
  type NoteFacetsOutput,
  type NoteListInput,
  type NoteListOutput,
  type NoteSearchInput,
  type NoteSearchOutput,
  type NoteSummary,
  type NoteUpdateInput,
  type RemoveAttachmentOutput,
} from '@terminal-mcp/contract';
import type { Logger } from 'pino';
import type { BrokerConfig } from '../config/schema.js';
import { readAttachmentSource } from '../effects/attachments/attachment-source.js';
import { readAttachmentFile, removeAttachmentFile, writeAttachmentFile } from '../effects/attachments/attachment-files.js';
import { type AttachmentRecord, type NoteFields, type NoteRecord, type NoteSummaryRecord, type NotesStore } from '../effects/store/notes-store.js';
import { sniffImageType } from '../policy/image-type.js';
import { buildNoteSearchQuery } from '../policy/note-search-query.js';
import { redactSecrets } from '../policy/redact.js';
import type { StoresOf } from '../capabilities.js';

/** What the notes use cases use: the stores (notes.db and the state dir), config, log. */
export interface NotesDeps {
  config: BrokerConfig;
  stores: StoresOf<'notes'>;
  log: Logger;
}

export interface NotesContext {
  deps: NotesDeps;
  actor: string;
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
const storeOf = (ctx: NotesContext): NotesStore => ctx.deps.stores.notes;

const noSuchNote = () => new AppError('NOTE_NOT_FOUND', 'no note with that id');
const deletedNote = () => new AppError('NOTE_NOT_FOUND', 'that note is deleted', 'Bring it back with note_restore first, or pick another note (note_search, note_list).');

function attachmentView(a: AttachmentRecord): NoteAttachment {
  return { id: a.id, note_id: a.noteId, mime_type: a.mimeType as AttachmentMimeType, size: a.size, sha256: a.sha256, caption: a.caption === null ? null : redactSecrets(a.caption).text, created_at: iso(a.createdAt)! };
}

/** Notes are under the same promise as every read (issue 25): their text is redacted
 * BEFORE it is stored, for every client, so the original is kept nowhere (not in
 * notes.db, not in its search index). Views redact again, for notes stored earlier. */
const redactNoteText = (text: string) => redactSecrets(text).text;
const redactOptional = (text: string | null) => (text === null ? null : redactNoteText(text));

function redactFields<T extends Partial<NoteFields>>(fields: T): T {
  return {
    ...fields,
    ...(fields.title !== undefined && { title: redactNoteText(fields.title) }),
    ...(fields.body !== undefined && { body: redactNoteText(fields.body) }),
    ...(fields.analysis !== undefined && { analysis: redactNoteText(fields.analysis) }),
    ...(fields.sourceUrl !== undefined && { sourceUrl: redactOptional(fields.sourceUrl) }),
    ...(fields.tags !== undefined && { tags: fields.tags.map(redactNoteText) }),
    ...(fields.appliedWhere !== undefined && { appliedWhere: redactOptional(fields.appliedWhere) }),
  };
}

function noteView(store: NotesStore, n: NoteRecord): Note {
  return {
    id: n.id,
    title: redactNoteText(n.title),
    body: redactNoteText(n.body),
    analysis: redactNoteText(n.analysis),
    source_url: redactOptional(n.sourceUrl),
    tags: n.tags.map(redactNoteText),
    project: n.project,
    status: n.status,
    applied_at: iso(n.appliedAt),
    applied_where: redactOptional(n.appliedWhere),
    deleted_at: iso(n.deletedAt),
    created_at: iso(n.createdAt)!,
    updated_at: iso(n.updatedAt)!,
    created_by: n.createdBy,
    updated_by: n.updatedBy,
    attachments: store.attachments(n.id).map(attachmentView),
  };
}

function summaryView(n: NoteSummaryRecord): NoteSummary {
  return {
    id: n.id,
    title: redactNoteText(n.title),
    tags: n.tags.map(redactNoteText),
    project: n.project,
    status: n.status,
    deleted_at: iso(n.deletedAt),
    updated_at: iso(n.updatedAt)!,
    attachment_count: n.attachmentCount,
    cover_attachment_id: n.coverAttachmentId,
  };
}

const uniqueTags = (tags: readonly string[] | undefined) => [...new Set(tags ?? [])];

export function createNote(ctx: NotesContext, input: NoteCreateInput): Note {
  const store = storeOf(ctx);
  const now = Date.now();
  const status = input.status ?? 'new';
  const fields: NoteFields = {
    title: input.title,
    body: input.body ?? '',
    analysis: input.analysis ?? '',
    sourceUrl: input.source_url ?? null,
    tags: uniqueTags(input.tags),
    project: input.project ?? null,
    status,
    appliedAt: status === 'applied' ? now : null,
    appliedWhere: null,
  };
  const note = store.create(redactFields(fields), ctx.actor, now);
  ctx.deps.log.info({ event: 'notes.created', id: note.id, actor: ctx.actor }, 'note created');
  return noteView(store, note);
}

export function getNote(ctx: NotesContext, id: number): Note {
  const store = storeOf(ctx);
  const note = store.get(id);
  if (!note) throw noSuchNote();
  return noteView(store, note);
}

/** Changes a live note; `change` sees the current record (inside the write transaction). */
function changeLiveNote(ctx: NotesContext, id: number, change: (note: NoteRecord, now: number) => Partial<NoteFields>): Note {
  const store = storeOf(ctx);
  const now = Date.now();
  const note = store.update(
    id,
    (current) => {
      if (current.deletedAt !== null) throw deletedNote();
      return redactFields(change(current, now));
    },
    ctx.actor,
    now,
  );
  if (!note) throw noSuchNote();
  return noteView(store, note);
}

export function updateNote(ctx: NotesContext, input: NoteUpdateInput): Note {
  return changeLiveNote(ctx, input.id, (current, now) => ({
    ...(input.title !== undefined && { title: input.title }),
    ...(input.body !== undefined && { body: input.body }),
    ...(input.analysis !== undefined && { analysis: input.analysis }),
    ...(input.source_url !== undefined && { sourceUrl: input.source_url }),
    ...(input.tags !== undefined && { tags: uniqueTags(input.tags) }),
    ...(input.status !== undefined && {
      status: input.status,
      // Moving a card onto "applied" stamps it; moving it away clears the stamp.
      appliedAt: input.status === 'applied' ? (current.appliedAt ?? now) : null,
      appliedWhere: input.status === 'applied' ? current.appliedWhere : null,
    }),
  }));
}

export function linkNoteToProject(ctx: NotesContext, id: number, project: string | null): Note {
  return changeLiveNote(ctx, id, () => ({ project }));
}

export function markNoteApplied(ctx: NotesContext, id: number, where: string | undefined): Note {
  return changeLiveNote(ctx, id, (current, now) => ({ status: 'applied', appliedAt: now, appliedWhere: where ?? current.appliedWhere }));
}

/** Soft delete: the note leaves lists and search, keeps its attachments, and comes back
 * with restore. Deleting a deleted note changes nothing. */
export function deleteNote(ctx: NotesContext, id: number): Note {
  return setDeleted(ctx, id, true);
}

export function restoreNote(ctx: NotesContext, id: number): Note {
  return setDeleted(ctx, id, false);
}

function setDeleted(ctx: NotesContext, id: number, deleted: boolean): Note {
  const store = storeOf(ctx);
  const now = Date.now();
  const note = store.update(id, (current) => ({ deletedAt: deleted ? (current.deletedAt ?? now) : null }), ctx.actor, now);
  if (!note) throw noSuchNote();
  ctx.deps.log.info({ event: deleted ? 'notes.deleted' : 'notes.restored', id, actor: ctx.actor }, deleted ? 'note deleted' : 'note restored');
  return noteView(store, note);
}

export function searchNotes(ctx: NotesContext, input: NoteSearchInput): NoteSearchOutput {
  const { match, terms } = buildNoteSearchQuery(input.query);
  if (match === null) return { hits: [], terms };
  const hits = storeOf(ctx).search(match, { status: input.status, tag: input.tag, project: input.project, limit: input.limit ?? 10 });
  return { hits: hits.map((h) => ({ ...summaryView(h), snippet: redactNoteText(h.snippet), rank: h.rank })), terms };
}

export function listNotes(ctx: NotesContext, input: NoteListInput): NoteListOutput {
  const limit = input.limit ?? 20;
  const rows = storeOf(ctx).list({ status: input.status, tag: input.tag, project: input.project, deleted: input.deleted ?? false, limit: limit + 1, beforeId: input.before_id });
  const page = rows.slice(0, limit);
  return { notes: page.map(summaryView), next_before_id: rows.length > limit ? page[page.length - 1]!.id : null };
}

export function noteFacets(ctx: NotesContext): NoteFacetsOutput {
  return storeOf(ctx).facets();
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

function decodeBase64(data: string): Buffer {
  const compact = data.replace(/\s+/g, '');
  if (compact.length % 4 !== 0 || !BASE64.test(compact)) throw new AppError('INVALID_ARGUMENT', 'data_base64 is not valid base64', 'Send the image bytes as standard base64 (A-Z a-z 0-9 + /, = padding), without a data: prefix.');
  return Buffer.from(compact, 'base64');
}

export async function addNoteAttachment(ctx: NotesContext, input: NoteAddAttachmentInput): Promise<NoteAttachment> {
  const store = storeOf(ctx);
  const note = store.get(input.id);
  if (!note) throw noSuchNote();
  if (note.deletedAt !== null) throw deletedNote();
  if (store.countAttachments(note.id) >= NOTE_LIMITS.attachmentsPerNote) {
    throw new AppError('INVALID_ARGUMENT', `a note holds at most ${NOTE_LIMITS.attachmentsPerNote} attachments`, 'Remove one with note_remove_attachment first.');
  }
  // notes.max_attachment_bytes, never above the ceiling the sockets are sized for.
  const maxBytes = Math.min(ctx.deps.config.notes.max_attachment_bytes, NOTE_LIMITS.attachmentBytes);
  const bytes =
    input.data_base64 !== undefined
      ? decodeBase64(input.data_base64)
      : await readAttachmentSource(ctx.deps.config.notes.attachment_source_roots, input.source_path!, maxBytes);
  if (bytes.length > maxBytes) throw new AppError('FILE_TOO_LARGE', `the image is larger than ${maxBytes} bytes`, 'Attach a smaller image.');
  const type = sniffImageType(bytes);
  if (!type) throw new AppError('ATTACHMENT_TYPE_REFUSED', 'the bytes are not a PNG, JPEG, GIF or WebP image');

  const now = new Date();
  const file = await writeAttachmentFile(ctx.deps.stores.stateDir, bytes, type, now);
  const record: AttachmentRecord = {
    id: file.id,
    noteId: note.id,
    mimeType: type.mime,
    relPath: file.relPath,
    size: bytes.length,
    sha256: createHash('sha256').update(bytes).digest('hex'),
    caption: input.caption === undefined ? null : redactSecrets(input.caption).text,
    createdAt: now.getTime(),
    createdBy: ctx.actor,
  };
  try {
    store.addAttachment(record);
  } catch (err) {
    // The note went away meanwhile (foreign key): leave no orphaned file behind.
    await removeAttachmentFile(ctx.deps.stores.stateDir, file.relPath);
    throw err;
  }
  ctx.deps.log.info({ event: 'notes.attachment_added', id: note.id, attachment: record.id, mime: type.mime, size: record.size, actor: ctx.actor }, 'note attachment added');
  return attachmentView(record);
}

export async function removeNoteAttachment(ctx: NotesContext, attachmentId: string): Promise<RemoveAttachmentOutput> {
  const store = storeOf(ctx);
  const attachment = store.attachment(attachmentId);
  if (!attachment || !store.removeAttachment(attachmentId)) throw new AppError('NOTE_NOT_FOUND', 'no attachment with that id', 'See the note\'s attachments with note_get.');
  await removeAttachmentFile(ctx.deps.stores.stateDir, attachment.relPath);
  ctx.deps.log.info({ event: 'notes.attachment_removed', id: attachment.noteId, attachment: attachmentId, actor: ctx.actor }, 'note attachment removed');
  return { attachment_id: attachmentId, note_id: attachment.noteId, removed: true };
}

/** The bytes of one attachment with the type recorded when it was stored (for the
 * dashboard's authenticated attachment route). */
export async function attachmentContent(ctx: NotesContext, attachmentId: string): Promise<AttachmentContent> {
  const attachment = storeOf(ctx).attachment(attachmentId);
  if (!attachment) throw new AppError('NOTE_NOT_FOUND', 'no attachment with that id');
  const bytes = await readAttachmentFile(ctx.deps.stores.stateDir, attachment.relPath, NOTE_LIMITS.attachmentBytes);
  return { mime_type: attachment.mimeType as AttachmentMimeType, data_base64: bytes.toString('base64'), size: bytes.length };
}
