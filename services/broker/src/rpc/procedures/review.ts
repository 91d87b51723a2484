/**
 * Review mode's procedures (input/review-queue.ts). The gateway may only wait for the
 * decision on an input it proposed itself; approving and rejecting are operator
 * procedures, served on web.sock alone, for a signed-in operator: separation of duties
 * holds by construction, since no MCP client's socket serves them (roles.test.ts pins it).
 */
import { AppError, decideApprovalInputSchema, waitForApprovalInputSchema, type ApprovalView } from '@terminal-mcp/contract';
import type { BrokerContext } from '../context.js';
import { operatorProcedure } from '../operator.js';
import { gatewayProcedure } from '../trpc.js';

/** The proposer sees its own approvals; another client's look unknown (NOT_FOUND). */
function ownApproval(ctx: BrokerContext, view: ApprovalView | null, id: number): ApprovalView {
  if (!view || view.proposed_by !== ctx.actor) throw new AppError('NOT_FOUND', `no queued input with approval_id ${id} for this client`);
  return view;
}

export const review = {
  waitForApproval: gatewayProcedure.input(waitForApprovalInputSchema).query(async ({ ctx, input }) => {
    const queue = ctx.deps.input.reviews;
    ownApproval(ctx, queue.get(input.approval_id), input.approval_id);
    const view = await queue.waitForDecision(input.approval_id, (input.timeout_s ?? 30) * 1000);
    return { ...view, decided: view.state !== 'pending' && view.state !== 'approving' };
  }),
};

export const dashboardReview = {
  list: operatorProcedure.query(({ ctx }) => ({ approvals: ctx.deps.input.reviews.list() })),
  approve: operatorProcedure
    .meta({ effect: 'input' })
    .input(decideApprovalInputSchema)
    .mutation(({ ctx, input }) => ctx.deps.input.reviews.approve(input.approval_id, ctx.actor)),
  reject: operatorProcedure
    .meta({ effect: 'input' })
    .input(decideApprovalInputSchema)
    .mutation(({ ctx, input }) => ctx.deps.input.reviews.reject(input.approval_id, ctx.actor)),
};
