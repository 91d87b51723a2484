/** The audit logs, read-only. The MCP gateway sees input attempts of its own actor only
 * (the name the gateway sends for it), never another client's attempts or previews; the
 * dashboard, for a signed-in operator, sees every attempt and a per-day summary of the
 * read audit (the `/audit` page). */
import { listInputAuditInputSchema, readSummaryInputSchema } from '@terminal-mcp/contract';
import { listInputAudit } from '../../audit/list-input-audit.js';
import { summarizeReadAudit } from '../../audit/read-summary.js';
import { operatorProcedure } from '../operator.js';
import { gatewayProcedure } from '../trpc.js';

export const audit = {
  listInput: gatewayProcedure.input(listInputAuditInputSchema).query(({ ctx, input }) => listInputAudit(ctx.deps, input, { actor: ctx.actor })),
};

/** web.sock only, as `audit.`: the operator's view of the whole log. */
export const auditOperator = {
  listInput: operatorProcedure.input(listInputAuditInputSchema).query(({ ctx, input }) => listInputAudit(ctx.deps, input, 'all')),
  readSummary: operatorProcedure.input(readSummaryInputSchema).query(({ ctx, input }) => summarizeReadAudit(ctx.deps, input)),
};
