/** The input audit log, read-only. */
import { listInputAuditInputSchema } from '@terminal-mcp/contract';
import { listInputAudit } from '../../audit/list-input-audit.js';
import { publicProcedure, router } from '../trpc.js';

export const auditRouter = router({
  listInput: publicProcedure.input(listInputAuditInputSchema).query(({ ctx, input }) => listInputAudit(ctx.deps, input)),
});
