/**
 * The notes/ideas tools: "lưu lại" a thing worth keeping (text, your analysis, its source,
 * tags, an image), find it again, and move it along to "applied". They write only the
 * broker's notes store and its image files, never a terminal; note_search and note_get are
 * shared with the observer (@terminal-mcp/mcp-kit).
 */
import {
  attachmentIdInputShape,
  noteAddAttachmentInputShape,
  noteAttachmentOutputSchema,
  noteCreateInputShape,
  noteFacetsOutputSchema,
  noteIdInputShape,
  noteLinkInputShape,
  noteListInputShape,
  noteListOutputSchema,
  noteMarkAppliedInputShape,
  noteSchema,
  noteUpdateInputShape,
  removeAttachmentOutputSchema,
  type NoteFacetsOutput,
  type NoteListOutput,
} from '@terminal-mcp/contract';
import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { NOTE_LIST_COLUMNS, noteReadTools, noteRecord, renderNote, renderNoteSummary, renderRecords } from '@terminal-mcp/mcp-kit';
import { defineTool, READ_ONLY_ANNOTATIONS, type GatewayTool } from './define-tool.js';

/** Notes writes change only notes.db and its files; delete is soft (note_restore undoes it). */
const NOTE_WRITE = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false } as const satisfies ToolAnnotations;
const NOTE_IDEMPOTENT_WRITE = { ...NOTE_WRITE, idempotentHint: true } as const satisfies ToolAnnotations;
/** Removing an attachment deletes its image file for good. */
const NOTE_DESTRUCTIVE = { ...NOTE_WRITE, destructiveHint: true, idempotentHint: true } as const satisfies ToolAnnotations;

function renderFacets(f: NoteFacetsOutput): string {
  const list = (items: { count: number }[], label: (i: never) => string) => items.map((i) => `${label(i as never)} ${i.count}`).join(', ') || '-';
  return [
    `${f.total} notes (${f.deleted} deleted).`,
    `Status: ${list(f.statuses, (i: { status: string }) => i.status)}`,
    `Tags: ${list(f.tags, (i: { tag: string }) => `#${i.tag}`)}`,
    `Projects: ${list(f.projects, (i: { project: string }) => i.project)}`,
  ].join('\n');
}

const renderList = (r: NoteListOutput) =>
  [...renderRecords(r.notes.map(noteRecord), NOTE_LIST_COLUMNS, { keep: ['id'], empty: 'No notes.' }), ...(r.next_before_id !== null ? ['', `More: before_id ${r.next_before_id}.`] : [])].join('\n');

export const noteTools: readonly GatewayTool[] = [
  defineTool({
    name: 'note_create',
    title: 'Save a note',
    description: 'Save a note ("lưu lại"): content, your analysis, source, tags. Images: note_add_attachment.',
    inputShape: noteCreateInputShape,
    outputSchema: noteSchema,
    annotations: NOTE_WRITE,
    run: (args, { broker, signal }) => broker.notes.create.mutate(args, { signal }),
    render: (n) => `Saved ${renderNote(n)}`,
  }),
  ...noteReadTools<'gateway'>(),
  defineTool({
    name: 'note_list',
    title: 'List notes',
    description: 'Notes, newest first, filtered.',
    inputShape: noteListInputShape,
    outputSchema: noteListOutputSchema,
    annotations: READ_ONLY_ANNOTATIONS,
    run: (args, { broker, signal }) => broker.notes.list.query(args, { signal }),
    render: renderList,
  }),
  defineTool({
    name: 'note_update',
    title: 'Edit a note',
    description: 'Change the given fields.',
    inputShape: noteUpdateInputShape,
    outputSchema: noteSchema,
    annotations: NOTE_IDEMPOTENT_WRITE,
    run: (args, { broker, signal }) => broker.notes.update.mutate(args, { signal }),
    render: (n) => `Updated ${renderNote(n)}`,
  }),
  defineTool({
    name: 'note_delete',
    title: 'Delete a note',
    description: 'Soft delete (note_restore undoes).',
    inputShape: noteIdInputShape,
    outputSchema: noteSchema,
    annotations: NOTE_IDEMPOTENT_WRITE,
    run: (args, { broker, signal }) => broker.notes.delete.mutate(args, { signal }),
    render: (n) => `Deleted #${n.id} (note_restore brings it back).`,
  }),
  defineTool({
    name: 'note_restore',
    title: 'Restore a deleted note',
    description: 'Undo note_delete.',
    inputShape: noteIdInputShape,
    outputSchema: noteSchema,
    annotations: NOTE_IDEMPOTENT_WRITE,
    run: (args, { broker, signal }) => broker.notes.restore.mutate(args, { signal }),
    render: (n) => `Restored ${renderNoteSummary({ ...n, attachment_count: n.attachments.length, cover_attachment_id: null })}`,
  }),
  defineTool({
    name: 'note_add_attachment',
    title: 'Attach an image to a note',
    description: 'Attach a PNG/JPEG/GIF/WebP (≤4 MiB): data_base64, or source_path under allowed roots.',
    inputShape: noteAddAttachmentInputShape,
    outputSchema: noteAttachmentOutputSchema,
    annotations: NOTE_WRITE,
    run: (args, { broker, signal }) => broker.notes.addAttachment.mutate(args, { signal }),
    render: (a) => `Attached ${a.id} (${a.mime_type}, ${a.size} bytes) to note #${a.note_id}.`,
  }),
  defineTool({
    name: 'note_remove_attachment',
    title: 'Remove an image from a note',
    description: 'Delete an attachment and its file.',
    inputShape: attachmentIdInputShape,
    outputSchema: removeAttachmentOutputSchema,
    annotations: NOTE_DESTRUCTIVE,
    run: (args, { broker, signal }) => broker.notes.removeAttachment.mutate(args, { signal }),
    render: (r) => `Removed attachment ${r.attachment_id} from note #${r.note_id}.`,
  }),
  defineTool({
    name: 'note_link_to_project',
    title: 'Link a note to a project',
    description: 'Set or clear the note\'s project.',
    inputShape: noteLinkInputShape,
    outputSchema: noteSchema,
    annotations: NOTE_IDEMPOTENT_WRITE,
    run: (args, { broker, signal }) => broker.notes.linkToProject.mutate(args, { signal }),
    render: (n) => (n.project ? `Note #${n.id} linked to ${JSON.stringify(n.project)}.` : `Note #${n.id} unlinked.`),
  }),
  defineTool({
    name: 'note_mark_applied',
    title: 'Mark a note applied',
    description: 'Mark applied now, with where.',
    inputShape: noteMarkAppliedInputShape,
    outputSchema: noteSchema,
    annotations: NOTE_IDEMPOTENT_WRITE,
    run: (args, { broker, signal }) => broker.notes.markApplied.mutate(args, { signal }),
    render: (n) => `Note #${n.id} applied ${n.applied_at}${n.applied_where ? `: ${n.applied_where}` : ''}.`,
  }),
  defineTool({
    name: 'note_facets',
    title: 'Count notes by status, tag and project',
    description: 'Note counts per status, tag, project.',
    inputShape: {},
    outputSchema: noteFacetsOutputSchema,
    annotations: READ_ONLY_ANNOTATIONS,
    run: (_args, { broker, signal }) => broker.notes.facets.query({}, { signal }),
    render: renderFacets,
  }),
];
