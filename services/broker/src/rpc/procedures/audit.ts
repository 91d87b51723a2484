/** The audit logs, read-only. A gateway caller sees the input attempts of its own
 * identity only — its OAuth client and user, the static token, or the local user of a
 * stdio gateway (policy/authority.ts), never the name a client gives itself — and never
 * another client's attempts or previews; an unauthenticated HTTP client has no view of
 * its own (all of them are one anonymous identity). The dashboard, for a signed-in
 * operator, sees every attempt and a per-day summary of the read audit (`/audit`). */
import { AppError, listInputAuditInputSchema, readSummaryInputSchema } from '@terminal-mcp/contract';
import { listInputAudit } from '../../audit/list-input-audit.js';
import { summarizeReadAudit } from '../../audit/read-summary.js';
import { perClientViewKey } from '../../policy/authority.js';
import { operatorProcedure } from '../operator.js';
import { gatewayProcedure } from '../trpc.js';

export const audit = {
  listInput: gatewayProcedure.input(listInputAuditInputSchema).query(({ ctx, input }) => {
    const own = perClientViewKey(ctx.principal);
    if (own === null) {
      throw new AppError('FORBIDDEN', 'an unauthenticated client has no input audit of its own', 'The operator reads the whole input audit on the dashboard (/audit); a client with a token or OAuth sees its own attempts.');
    }
    return listInputAudit(ctx.deps, input, { actor: own });
  }),
};

/** web.sock only, as `audit.`: the operator's view of the whole log. */
export const auditOperator = {
  listInput: operatorProcedure.input(listInputAuditInputSchema).query(({ ctx, input }) => listInputAudit(ctx.deps, input, 'all')),
  readSummary: operatorProcedure.input(readSummaryInputSchema).query(({ ctx, input }) => summarizeReadAudit(ctx.deps, input)),
};
