/** Read-path procedures: discovery and content reads. Inputs are validated again here
 * with the same contract schemas the edges use (never trust the client's validation). */
import {
  batchInspectInputSchema,
  captureInputSchema,
  listSessionsInputSchema,
  statusInputSchema,
  tailInputSchema,
} from '@terminal-mcp/contract';
import { createSessionReader } from '../../reads/session-reader.js';
import type { BrokerContext } from '../context.js';
import { publicProcedure, router } from '../trpc.js';

const reader = (ctx: BrokerContext) => createSessionReader({ config: ctx.deps.config, tmux: ctx.deps.tmux });

export const sessionsRouter = router({
  list: publicProcedure.input(listSessionsInputSchema).query(async ({ ctx, input }) => ({
    sessions: await reader(ctx).list({ nameContains: input.name_filter, readableOnly: input.readable_only }),
    read_enabled: ctx.deps.config.permissions.terminal_read,
  })),

  tail: publicProcedure
    .input(tailInputSchema)
    .query(({ ctx, input }) => reader(ctx).tail(input.session, input.lines, input.strip_ansi ?? true)),

  capture: publicProcedure
    .input(captureInputSchema)
    .query(({ ctx, input }) =>
      reader(ctx).capture(input.session, { start: input.start_line, end: input.end_line }, input.strip_ansi ?? true),
    ),

  status: publicProcedure.input(statusInputSchema).query(({ ctx, input }) => reader(ctx).status(input.session)),

  batchInspect: publicProcedure
    .input(batchInspectInputSchema)
    .query(async ({ ctx, input }) => ({ results: await reader(ctx).batchInspect(input.sessions, input.lines) })),
});
