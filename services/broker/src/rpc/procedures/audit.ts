/** The input audit log, read-only, for the MCP gateway: a gateway client sees only the
 * rows of its own actor (the name the gateway sends for it), never another client's
 * attempts or previews. */
import { listInputAuditInputSchema } from '@terminal-mcp/contract';
import { listInputAudit } from '../../audit/list-input-audit.js';
import { gatewayProcedure } from '../trpc.js';

export const audit = {
  listInput: gatewayProcedure.input(listInputAuditInputSchema).query(({ ctx, input }) => listInputAudit(ctx.deps, input, { actor: ctx.actor })),
};
