/** Binding procedures: create, inspect and remove bindings (mutations change bindings.db
 * only), and read through them. Sending through a binding is `input.sendBound`. */
import { bindInputSchema, bindingNameInputSchema, listBindingsInputSchema, tailBoundInputSchema } from '@terminal-mcp/contract';
import { bindSession, getBinding, listBindings, statusBound, tailBound, unbind } from '../../input/bindings.js';
import { publicProcedure, router } from '../trpc.js';

export const bindingsRouter = router({
  bind: publicProcedure.input(bindInputSchema).mutation(({ ctx, input }) => bindSession(ctx, input)),
  get: publicProcedure.input(bindingNameInputSchema).query(({ ctx, input }) => getBinding(ctx, input.binding)),
  list: publicProcedure.input(listBindingsInputSchema).query(({ ctx }) => listBindings(ctx)),
  unbind: publicProcedure.input(bindingNameInputSchema).mutation(({ ctx, input }) => unbind(ctx, input.binding)),
  tail: publicProcedure.input(tailBoundInputSchema).query(({ ctx, input }) => tailBound(ctx, input)),
  status: publicProcedure.input(bindingNameInputSchema).query(({ ctx, input }) => statusBound(ctx, input.binding)),
});
