/**
 * Notes procedures. The MCP gateway may do everything the twelve note_* tools do; the
 * observer may only search and read (rows built on the shared read base, so the observer
 * router cannot name a note write); the dashboard's rows are operator procedures, so they
 * need the signed-in operator's session and record `web:<username>` as the actor.
 */
import {
  attachmentIdInputSchema,
  noteAddAttachmentInputSchema,
  noteUploadAttachmentInputSchema,
  noteCreateInputSchema,
  noteFacetsInputSchema,
  noteIdInputSchema,
  noteLinkInputSchema,
  noteListInputSchema,
  noteMarkAppliedInputSchema,
  noteSearchInputSchema,
  noteUpdateInputSchema,
} from '@terminal-mcp/contract';
import {
  addNoteAttachment,
  attachmentContent,
  createNote,
  deleteNote,
  getNote,
  linkNoteToProject,
  listNotes,
  markNoteApplied,
  noteFacets,
  removeNoteAttachment,
  restoreNote,
  searchNotes,
  updateNote,
} from '../../notes/notes-service.js';
import { operatorProcedure } from '../operator.js';
import { gatewayProcedure, servedTo } from '../trpc.js';

/** Reading notes: the two MCP services. */
const noteReader = servedTo('gateway', 'observer');

export const notes = {
  search: noteReader.input(noteSearchInputSchema).query(({ ctx, input }) => searchNotes(ctx, input)),
  get: noteReader.input(noteIdInputSchema).query(({ ctx, input }) => getNote(ctx, input.id)),
  list: gatewayProcedure.input(noteListInputSchema).query(({ ctx, input }) => listNotes(ctx, input)),
  facets: gatewayProcedure.input(noteFacetsInputSchema).query(({ ctx }) => noteFacets(ctx)),
  create: gatewayProcedure.input(noteCreateInputSchema).mutation(({ ctx, input }) => createNote(ctx, input)),
  update: gatewayProcedure.input(noteUpdateInputSchema).mutation(({ ctx, input }) => updateNote(ctx, input)),
  delete: gatewayProcedure.input(noteIdInputSchema).mutation(({ ctx, input }) => deleteNote(ctx, input.id)),
  restore: gatewayProcedure.input(noteIdInputSchema).mutation(({ ctx, input }) => restoreNote(ctx, input.id)),
  addAttachment: gatewayProcedure.input(noteAddAttachmentInputSchema).mutation(({ ctx, input }) => addNoteAttachment(ctx, input)),
  removeAttachment: gatewayProcedure.input(attachmentIdInputSchema).mutation(({ ctx, input }) => removeNoteAttachment(ctx, input.attachment_id)),
  linkToProject: gatewayProcedure.input(noteLinkInputSchema).mutation(({ ctx, input }) => linkNoteToProject(ctx, input.id, input.project)),
  markApplied: gatewayProcedure.input(noteMarkAppliedInputSchema).mutation(({ ctx, input }) => markNoteApplied(ctx, input.id, input.where)),
};

/** The dashboard's /notes pages. Uploads carry the bytes in band only (never a host path);
 * the type is decided from the bytes here, like note_add_attachment's. */
export const dashboardNotes = {
  search: operatorProcedure.input(noteSearchInputSchema).query(({ ctx, input }) => searchNotes(ctx, input)),
  get: operatorProcedure.input(noteIdInputSchema).query(({ ctx, input }) => getNote(ctx, input.id)),
  list: operatorProcedure.input(noteListInputSchema).query(({ ctx, input }) => listNotes(ctx, input)),
  facets: operatorProcedure.input(noteFacetsInputSchema).query(({ ctx }) => noteFacets(ctx)),
  create: operatorProcedure.input(noteCreateInputSchema).mutation(({ ctx, input }) => createNote(ctx, input)),
  update: operatorProcedure.input(noteUpdateInputSchema).mutation(({ ctx, input }) => updateNote(ctx, input)),
  linkToProject: operatorProcedure.input(noteLinkInputSchema).mutation(({ ctx, input }) => linkNoteToProject(ctx, input.id, input.project)),
  delete: operatorProcedure.input(noteIdInputSchema).mutation(({ ctx, input }) => deleteNote(ctx, input.id)),
  restore: operatorProcedure.input(noteIdInputSchema).mutation(({ ctx, input }) => restoreNote(ctx, input.id)),
  addAttachment: operatorProcedure.input(noteUploadAttachmentInputSchema).mutation(({ ctx, input }) => addNoteAttachment(ctx, input)),
  removeAttachment: operatorProcedure.input(attachmentIdInputSchema).mutation(({ ctx, input }) => removeNoteAttachment(ctx, input.attachment_id)),
  /** The bytes behind /notes/attachments/[id]. */
  attachment: operatorProcedure.input(attachmentIdInputSchema).query(({ ctx, input }) => attachmentContent(ctx, input.attachment_id)),
};
