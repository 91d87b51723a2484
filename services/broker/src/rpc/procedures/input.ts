/**
 * Input procedures: everything that types into a pane (mutations) and the one-call input
 * context (a query). All sends go through input/attempt.ts: gates on facts re-read from
 * tmux, an audit row before acting, a per-pane lease, identity re-checked at the moment of
 * sending. Served to the gateway and the dashboard, never to the observer.
 */
import {
  inputContextInputSchema,
  sendBoundInputSchema,
  sendKeysInputSchema,
  sendTaskInputSchema,
  sendTextInputSchema,
} from '@terminal-mcp/contract';
import { inputContext } from '../../input/context.js';
import { sendKeys, sendText } from '../../input/send.js';
import type { TargetRef } from '../../input/target.js';
import { sendTask } from '../../input/task.js';
import { publicProcedure, router } from '../trpc.js';

/** The schemas already require exactly one of the two. */
/** Input from the dashboard is recorded under its own tool names, so the audit shows at a
 * glance that an operator typed it (the actor says which one). */
const toolName = (role: string, mcpTool: string, dashboardTool: string) => (role === 'web' ? dashboardTool : mcpTool);

const targetOf = (input: { session?: string | undefined; binding?: string | undefined }): TargetRef =>
  input.binding !== undefined ? { binding: input.binding } : { session: input.session ?? '' };

export const inputRouter = router({
  context: publicProcedure.input(inputContextInputSchema).query(({ ctx, input }) => inputContext(ctx, targetOf(input))),

  sendText: publicProcedure.input(sendTextInputSchema).mutation(({ ctx, input }) =>
    sendText(ctx, { tool: toolName(ctx.role, 'terminal_send_text', 'dashboard_text'), target: { session: input.session }, text: input.text, enter: input.enter ?? false, dryRun: input.dry_run ?? false }),
  ),

  sendBound: publicProcedure.input(sendBoundInputSchema).mutation(({ ctx, input }) =>
    sendText(ctx, { tool: 'terminal_send_bound', target: { binding: input.binding }, text: input.text, enter: input.enter ?? false, dryRun: input.dry_run ?? false }),
  ),

  sendKeys: publicProcedure.input(sendKeysInputSchema).mutation(({ ctx, input }) =>
    sendKeys(ctx, { tool: toolName(ctx.role, 'terminal_send_keys', 'dashboard_keys'), target: targetOf(input), keys: input.keys, confirmSensitive: input.confirm_sensitive ?? false, dryRun: input.dry_run ?? false }),
  ),

  sendTask: publicProcedure.input(sendTaskInputSchema).mutation(({ ctx, input }) =>
    sendTask(ctx, {
      target: targetOf(input),
      text: input.text,
      dryRun: input.dry_run ?? false,
      ...(input.idempotency_key !== undefined ? { idempotencyKey: input.idempotency_key } : {}),
    }),
  ),
});
