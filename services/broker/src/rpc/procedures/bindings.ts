/** Binding procedures: create, inspect and remove bindings (mutations change bindings.db
 * only), and read through them. Sending through a binding is `input.sendBound`. */
import { bindInputSchema, bindingNameInputSchema, listBindingsInputSchema, tailBoundInputSchema } from '@terminal-mcp/contract';
import { bindSession, getBinding, listBindings, statusBound, tailBound, unbind } from '../../input/bindings.js';
import { gatewayProcedure } from '../trpc.js';

export const bindings = {
  bind: gatewayProcedure.input(bindInputSchema).mutation(({ ctx, input }) => bindSession(ctx, input)),
  get: gatewayProcedure.input(bindingNameInputSchema).query(({ ctx, input }) => getBinding(ctx, input.binding)),
  list: gatewayProcedure.input(listBindingsInputSchema).query(({ ctx }) => listBindings(ctx)),
  unbind: gatewayProcedure.input(bindingNameInputSchema).mutation(({ ctx, input }) => unbind(ctx, input.binding)),
  tail: gatewayProcedure.input(tailBoundInputSchema).query(({ ctx, input }) => tailBound(ctx, input)),
  status: gatewayProcedure.input(bindingNameInputSchema).query(({ ctx, input }) => statusBound(ctx, input.binding)),
};
