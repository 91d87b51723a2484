/** The audit logs, read-only: input attempts (gateway and dashboard) and, for the
 * dashboard only, a summary of the read audit. */
import { listInputAuditInputSchema, readSummaryInputSchema } from '@terminal-mcp/contract';
import { listInputAudit } from '../../audit/list-input-audit.js';
import { summarizeReadAudit } from '../../audit/read-summary.js';
import { publicProcedure, router } from '../trpc.js';

const listInput = publicProcedure.input(listInputAuditInputSchema).query(({ ctx, input }) => listInputAudit(ctx.deps, input));

export const auditRouter = router({ listInput });

/** web.sock only: the `/audit` page adds who read what, per day. */
export const auditWebRouter = router({
  listInput,
  readSummary: publicProcedure.input(readSummaryInputSchema).query(({ ctx, input }) => summarizeReadAudit(ctx.deps, input)),
});
