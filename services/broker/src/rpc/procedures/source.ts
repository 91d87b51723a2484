/** Read-only project sources: git history and working-tree files of the projects listed
 * in `observer.source_roots`. Queries only — nothing here writes to a repository, its
 * index or its config. Inputs are validated with the contract schemas the edges use. */
import {
  blameInputSchema,
  diffInputSchema,
  gitLogInputSchema,
  gitStatusInputSchema,
  listFilesInputSchema,
  listProjectsInputSchema,
  listRefsInputSchema,
  readAppErrorData,
  readFileInputSchema,
  searchTextInputSchema,
  showCommitInputSchema,
} from '@terminal-mcp/contract';
import { readFile, listFiles } from '../../sources/files.js';
import { blame, diff, gitLog, listRefs, showCommit } from '../../sources/history.js';
import { searchText } from '../../sources/search.js';
import { gitStatus, listProjects } from '../../sources/status.js';
import type { BrokerContext } from '../context.js';
import { observerProcedure, raise } from '../trpc.js';
import { recordRead } from '../../audit/record-read.js';

/**
 * Runs a source read and turns our AppError into the matching tRPC error (so HTTP status
 * and `data.app` agree). A refused path is a security event: logged with the rule's
 * procedure and project, never the path text.
 */
async function answer<T>(ctx: BrokerContext, procedure: string, project: string | undefined, run: () => Promise<T>, path?: string): Promise<T> {
  // Every source read is recorded (queued) in audit.db's read_audit with the caller's
  // actor, e.g. `observer:<user>`; a refused path is recorded with its error code.
  const tool = `source.${procedure}`;
  try {
    const result = await run();
    recordRead(ctx, tool, { session: null, project: project ?? null, path: path ?? null });
    return result;
  } catch (err) {
    const app = readAppErrorData(err);
    recordRead(ctx, tool, { session: null, project: project ?? null, path: path ?? null, errorCode: app?.code ?? 'INTERNAL' });
    if (!app || !(err instanceof Error)) throw err;
    if (app.code === 'PATH_NOT_ALLOWED') {
      ctx.deps.log.warn({ event: 'security.source_path_refused', role: ctx.role, actor: ctx.actor, procedure, project }, 'source path refused');
    }
    return raise({ code: app.code, message: err.message, hint: app.hint });
  }
}

export const source = {
  listProjects: observerProcedure
    .input(listProjectsInputSchema)
    .query(({ ctx }) => answer(ctx, 'listProjects', undefined, async () => ({ projects: await listProjects(ctx.deps.config) }))),

  gitStatus: observerProcedure
    .input(gitStatusInputSchema)
    .query(({ ctx, input }) => answer(ctx, 'gitStatus', input.project, () => gitStatus(ctx.deps.config, input.project))),

  gitLog: observerProcedure.input(gitLogInputSchema).query(({ ctx, input }) => answer(ctx, 'gitLog', input.project, () => gitLog(ctx.deps.config, input))),

  showCommit: observerProcedure
    .input(showCommitInputSchema)
    .query(({ ctx, input }) => answer(ctx, 'showCommit', input.project, () => showCommit(ctx.deps.config, input))),

  diff: observerProcedure.input(diffInputSchema).query(({ ctx, input }) => answer(ctx, 'diff', input.project, () => diff(ctx.deps.config, input))),

  listRefs: observerProcedure
    .input(listRefsInputSchema)
    .query(({ ctx, input }) => answer(ctx, 'listRefs', input.project, () => listRefs(ctx.deps.config, input.project))),

  blame: observerProcedure.input(blameInputSchema).query(({ ctx, input }) => answer(ctx, 'blame', input.project, () => blame(ctx.deps.config, input), input.path)),

  listFiles: observerProcedure
    .input(listFilesInputSchema)
    .query(({ ctx, input }) => answer(ctx, 'listFiles', input.project, () => listFiles(ctx.deps.config, input), input.dir)),

  readFile: observerProcedure
    .input(readFileInputSchema)
    .query(({ ctx, input }) => answer(ctx, 'readFile', input.project, () => readFile(ctx.deps.config, input), input.path)),

  searchText: observerProcedure
    .input(searchTextInputSchema)
    .query(({ ctx, input }) => answer(ctx, 'searchText', input.project, () => searchText(ctx.deps.config, input, ctx.deps.running))),
};
