/**
 * The /notes pages' server side: loading (list, search, one note), and the form actions
 * (create, edit, move a card, delete, restore, upload or remove an image). Each one checks the
 * signed-in operator itself (requireUser: a layout check protects no action), validates
 * the form with the contract's schemas, and calls the broker as that operator.
 */
import { fail, redirect, type RequestEvent } from '@sveltejs/kit';
import {
  NOTE_LIMITS,
  attachmentIdSchema,
  noteCreateInputSchema,
  noteIdSchema,
  noteProjectSchema,
  noteStatusSchema,
  noteTagSchema,
  noteUpdateInputSchema,
  noteUploadAttachmentInputSchema,
  type NoteFacetsOutput,
  type NoteStatus,
  type NoteSummary,
} from '@terminal-mcp/contract';
import type { z } from 'zod';
import type { UiError } from '../ui-error.js';
import { requireUser } from './auth.js';
import { broker } from './broker.js';
import { toUiError } from './failure.js';

export const NOTE_VIEWS = ['list', 'gallery', 'kanban'] as const;
export type NoteView = (typeof NOTE_VIEWS)[number];

export interface NotesPage {
  view: NoteView;
  query: string;
  status: NoteStatus | null;
  tag: string | null;
  deleted: boolean;
  notes: (NoteSummary & { snippet?: string })[];
  nextBeforeId: number | null;
  facets: NoteFacetsOutput;
}

const optional = <T>(schema: z.ZodType<T>, value: string | null): T | undefined => {
  if (value === null || value === '') return undefined;
  const parsed = schema.safeParse(value);
  return parsed.success ? parsed.data : undefined;
};

async function searchPage(query: string, status: NoteStatus | undefined, tag: string | undefined) {
  const found = await broker().notes.search.query({ query, status, tag, limit: 50 });
  return { notes: found.hits, next_before_id: null };
}

/** The list, gallery or Kanban from the URL's search parameters; search when `q` is set. */
export async function loadNotesPage(params: URLSearchParams): Promise<NotesPage> {
  const view = (NOTE_VIEWS as readonly string[]).includes(params.get('view') ?? '') ? (params.get('view') as NoteView) : 'list';
  const query = (params.get('q') ?? '').slice(0, 500);
  const status = optional(noteStatusSchema, params.get('status'));
  const tag = optional(noteTagSchema, params.get('tag'));
  const deleted = params.get('deleted') === '1';
  const before = noteIdSchema.safeParse(Number(params.get('before')));
  const beforeId = before.success ? before.data : undefined;
  const [facets, found] = await Promise.all([
    broker().notes.facets.query({}),
    query.trim() !== '' && !deleted ? searchPage(query, status, tag) : broker().notes.list.query({ status, tag, deleted, limit: view === 'kanban' ? 100 : 30, before_id: beforeId }),
  ]);
  return { view, query, status: status ?? null, tag: tag ?? null, deleted, notes: found.notes, nextBeforeId: found.next_before_id, facets };
}

function invalid(fields: string[]) {
  return fail(400, { error: { code: 'INVALID_ARGUMENT', detail: fields.join(', ').slice(0, 300) } satisfies UiError });
}

const fieldsOf = (error: z.ZodError) => [...new Set(error.issues.map((i) => i.path.join('.') || 'input'))];

async function brokerCall<T>(call: () => Promise<T>) {
  try {
    return { ok: true as const, value: await call() };
  } catch (err) {
    const { status, error } = toUiError(err);
    return { ok: false as const, failure: fail(status, { error }) };
  }
}

const text = (form: FormData, name: string) => {
  const v = form.get(name);
  return typeof v === 'string' ? v : undefined;
};
/** Tags are typed space- or comma-separated in one box. */
const tagsOf = (value: string | undefined) => (value === undefined ? undefined : value.split(/[\s,]+/).filter((t) => t.length > 0));

export async function createNoteAction(event: RequestEvent) {
  requireUser(event);
  const form = await event.request.formData();
  const parsed = noteCreateInputSchema.safeParse({
    title: text(form, 'title'),
    body: text(form, 'body') || undefined,
    source_url: text(form, 'source_url') || undefined,
    tags: tagsOf(text(form, 'tags')),
    project: text(form, 'project') || undefined,
  });
  if (!parsed.success) return invalid(fieldsOf(parsed.error));
  const result = await brokerCall(() => broker().notes.create.mutate(parsed.data));
  if (!result.ok) return result.failure;
  redirect(303, `/notes/${result.value.id}`);
}

function idOf(form: FormData) {
  const parsed = noteIdSchema.safeParse(Number(text(form, 'id')));
  return parsed.success ? parsed.data : null;
}

/** A Kanban card's "move to" button: only the status changes. */
export async function moveNoteAction(event: RequestEvent) {
  requireUser(event);
  const form = await event.request.formData();
  const id = idOf(form);
  const status = noteStatusSchema.safeParse(text(form, 'status'));
  if (id === null || !status.success) return invalid(['status']);
  const result = await brokerCall(() => broker().notes.update.mutate({ id, status: status.data }));
  return result.ok ? { moved: { id, status: status.data } } : result.failure;
}

export async function saveNoteAction(event: RequestEvent) {
  requireUser(event);
  const form = await event.request.formData();
  const id = idOf(form);
  if (id === null) return invalid(['id']);
  const sourceUrl = text(form, 'source_url');
  const parsed = noteUpdateInputSchema.safeParse({
    id,
    title: text(form, 'title'),
    body: text(form, 'body'),
    analysis: text(form, 'analysis'),
    source_url: sourceUrl === '' ? null : sourceUrl,
    tags: tagsOf(text(form, 'tags')),
    status: text(form, 'status'),
  });
  const projectText = (text(form, 'project') ?? '').trim();
  const project = projectText === '' ? null : noteProjectSchema.safeParse(projectText);
  if (!parsed.success) return invalid(fieldsOf(parsed.error));
  if (project !== null && !project.success) return invalid(['project']);
  const saved = await brokerCall(() => broker().notes.update.mutate(parsed.data));
  if (!saved.ok) return saved.failure;
  const wanted = project === null ? null : project.data;
  if (saved.value.project !== wanted) {
    const linked = await brokerCall(() => broker().notes.linkToProject.mutate({ id, project: wanted }));
    if (!linked.ok) return linked.failure;
  }
  return { saved: true };
}

export async function deleteNoteAction(event: RequestEvent) {
  requireUser(event);
  const id = idOf(await event.request.formData());
  if (id === null) return invalid(['id']);
  const result = await brokerCall(() => broker().notes.delete.mutate({ id }));
  return result.ok ? { deleted: true } : result.failure;
}

export async function restoreNoteAction(event: RequestEvent) {
  requireUser(event);
  const id = idOf(await event.request.formData());
  if (id === null) return invalid(['id']);
  const result = await brokerCall(() => broker().notes.restore.mutate({ id }));
  return result.ok ? { restored: true } : result.failure;
}

export async function removeAttachmentAction(event: RequestEvent) {
  requireUser(event);
  const parsed = attachmentIdSchema.safeParse(text(await event.request.formData(), 'attachment_id'));
  if (!parsed.success) return invalid(['attachment_id']);
  const result = await brokerCall(() => broker().notes.removeAttachment.mutate({ attachment_id: parsed.data }));
  return result.ok ? { attachmentRemoved: true } : result.failure;
}

/** The upload form (multipart): the file's bytes go to the broker in band, which decides
 * the type from them (magic bytes; the file's name and declared type are ignored) and
 * applies notes.max_attachment_bytes. The check here only spares the broker a request
 * that is certainly too large. */
export async function addAttachmentAction(event: RequestEvent) {
  requireUser(event);
  const form = await event.request.formData();
  const id = idOf(form);
  if (id === null) return invalid(['id']);
  const file = form.get('image');
  if (!(file instanceof File) || file.size === 0) return invalid(['image']);
  if (file.size > NOTE_LIMITS.attachmentBytes) return fail(413, { error: { code: 'FILE_TOO_LARGE' } satisfies UiError });
  const caption = (text(form, 'caption') ?? '').trim();
  const parsed = noteUploadAttachmentInputSchema.safeParse({ id, data_base64: Buffer.from(await file.arrayBuffer()).toString('base64'), caption: caption === '' ? undefined : caption });
  if (!parsed.success) return invalid(fieldsOf(parsed.error));
  const result = await brokerCall(() => broker().notes.addAttachment.mutate(parsed.data));
  return result.ok ? { attachmentAdded: result.value.id } : result.failure;
}
