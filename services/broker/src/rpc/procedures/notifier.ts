/**
 * The notifier's procedures (notifier.sock only): claim the deliveries waiting in the
 * notice outbox (attention/notice-outbox.ts), report how each ended, and say it started
 * (what an earlier notifier claimed and never reported becomes UNKNOWN, not sent again).
 * Each delivery is a request the broker built: redacted text and the channel's URL. The
 * notifier can name nothing else: no session, no read, no input, no configuration.
 */
import { deliveryReportSchema, notifierClaimInputSchema, type NotifierClaimOutput } from '@terminal-mcp/contract';
import { z } from 'zod';
import { servedTo } from '../trpc.js';

const notifierProcedure = servedTo('notifier');

export const notifier = {
  /** A (re)started notifier's first call. A write: it ends deliveries as UNKNOWN. */
  started: notifierProcedure.input(z.object({}).strict()).mutation(({ ctx }) => ({ abandoned: ctx.deps.noticeOutbox.notifierStarted() })),

  /** Claims pending deliveries, waiting up to `wait_ms` for one (a long poll; the broker's
   * stop answers it at once). A mutation: claimed rows are the notifier's until reported. */
  claim: notifierProcedure
    .input(notifierClaimInputSchema)
    .mutation(async ({ ctx, input, signal }): Promise<NotifierClaimOutput> => ({ deliveries: await ctx.deps.noticeOutbox.claim(input.max, input.wait_ms, signal) })),

  /** How one claimed delivery ended; `recorded: false` for an id that was not claimed. */
  report: notifierProcedure.input(deliveryReportSchema).mutation(({ ctx, input }) => ({ recorded: ctx.deps.noticeOutbox.report(input) })),
};
