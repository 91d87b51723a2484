/**
 * Supervisor procedures (supervisor/): v1 watches and events, v2's claim → decide →
 * approve → send queue, and verifier policies. Reads are queries; everything that
 * changes supervisor.db is a mutation. `v2.executeSend` types only through the input
 * tools' guarded, audited path (input/send.ts sendText), with the caller's own identity,
 * so every input gate, the audit log and the pane lease apply unchanged.
 */
import {
  ackEventInputSchema,
  actionIdInputSchema,
  claimEventInputSchema,
  listActionableInputSchema,
  listActionsInputSchema,
  listEventsInputSchema,
  parkIdInputSchema,
  reviewActionInputSchema,
  setPolicyInputSchema,
  setVerifierPolicyInputSchema,
  submitDecisionInputSchema,
  waitEventsInputSchema,
  watchInputSchema,
  watchTargetInputSchema,
} from '@terminal-mcp/contract';
import { z } from 'zod';
import type { TargetRef } from '../../access/target.js';
import type { WatchRow } from '../../effects/store/supervisor-store.js';
import { preflightInput } from '../../input/authorize.js';
import { sendText } from '../../input/send.js';
import { claimEvent, executeSend, getPolicy, listActionable, listActions, pausePolicy, reviewAction, setPolicy, submitDecision } from '../../supervisor/actions.js';
import { cancelPark, listParks, resumeParkNow } from '../../supervisor/park-actions.js';
import { ackEvent, listEvents, listWatches, runOnce, setVerifierPolicy, status, supervisorCaller, unwatch, waitEvents, watch, type SupervisorCaller } from '../../supervisor/watches.js';
import type { BrokerContext } from '../context.js';
import { operatorProcedure } from '../operator.js';
import { gatewayProcedure } from '../trpc.js';

const caller = (ctx: BrokerContext): SupervisorCaller => supervisorCaller(ctx.deps.supervisor, ctx.actor);
const empty = z.object({}).strict();
const watchKeyInput = z.object({ watch_key: z.string().min(1).max(200) }).strict();

export const supervisor = {
  watch: gatewayProcedure.input(watchInputSchema).mutation(({ ctx, input }) => watch(caller(ctx), input)),
  unwatch: gatewayProcedure.input(watchTargetInputSchema).mutation(({ ctx, input }) => unwatch(caller(ctx), input)),
  listWatches: gatewayProcedure.input(empty).query(({ ctx }) => listWatches(caller(ctx))),
  status: gatewayProcedure.input(empty).query(({ ctx }) => status(caller(ctx))),
  listEvents: gatewayProcedure.input(listEventsInputSchema).query(({ ctx, input }) => listEvents(caller(ctx), input)),
  ackEvent: gatewayProcedure.input(ackEventInputSchema).mutation(({ ctx, input }) => ackEvent(caller(ctx), input.event_id)),
  runOnce: gatewayProcedure.input(empty).mutation(({ ctx }) => runOnce(caller(ctx))),
  waitEvents: gatewayProcedure.input(waitEventsInputSchema).query(({ ctx, input, signal }) => waitEvents(caller(ctx), input, signal)),
  setVerifierPolicy: gatewayProcedure.meta({ effect: 'input' }).input(setVerifierPolicyInputSchema).mutation(({ ctx, input }) => setVerifierPolicy(caller(ctx), input)),
};

export const supervisor2 = {
  setPolicy: gatewayProcedure.meta({ effect: 'input' }).input(setPolicyInputSchema).mutation(({ ctx, input }) => setPolicy(caller(ctx), input)),
  getPolicy: gatewayProcedure.input(watchTargetInputSchema).query(({ ctx, input }) => getPolicy(caller(ctx), input)),
  listActionableEvents: gatewayProcedure.input(listActionableInputSchema).query(({ ctx, input }) => listActionable(caller(ctx), input.limit)),
  claimEvent: gatewayProcedure.input(claimEventInputSchema).mutation(({ ctx, input }) => claimEvent(caller(ctx), input.event_id)),
  submitDecision: gatewayProcedure.input(submitDecisionInputSchema).mutation(({ ctx, input }) => submitDecision(caller(ctx), input.action_id, input.prompt)),
  reviewAction: gatewayProcedure.meta({ effect: 'input' }).input(reviewActionInputSchema).mutation(({ ctx, input }) => reviewAction(caller(ctx), input.action_id, input.decision)),
  // Types through the input attempt, which authorizes the caller at delivery.
  executeSend: gatewayProcedure.meta({ effect: 'delivery' }).input(actionIdInputSchema).mutation(({ ctx, input }) => {
    const targetOf = (w: WatchRow): TargetRef => (w.kind === 'binding' ? { binding: w.target } : { session: w.target });
    return executeSend(
      caller(ctx),
      input.action_id,
      (w, text, review) => sendText(ctx, { tool: 'supervisor2_execute_send', target: targetOf(w), text, enter: true, dryRun: false, review }),
      (w) => preflightInput(ctx, 'supervisor2_execute_send', targetOf(w)),
    );
  }),
  listActions: gatewayProcedure.input(listActionsInputSchema).query(({ ctx, input }) => listActions(caller(ctx), input)),
};

/** The dashboard's supervisor view, for a signed-in operator: watches, events (and a
 * live wait for new ones), acknowledge, the review queue (approve or reject), pause, and
 * agents parked at a usage limit (resume now, cancel). Nothing here claims or decides; the
 * one thing that types, resumePark, types only through the input tools' guarded path
 * (supervisor/limit-send.ts) after the park's own checks. */
export const supervisorDashboard = {
  listWatches: operatorProcedure.input(empty).query(({ ctx }) => listWatches(caller(ctx))),
  listEvents: operatorProcedure.input(listEventsInputSchema).query(({ ctx, input }) => listEvents(caller(ctx), input)),
  waitEvents: operatorProcedure.input(waitEventsInputSchema).query(({ ctx, input, signal }) => waitEvents(caller(ctx), input, signal)),
  ackEvent: operatorProcedure.input(ackEventInputSchema).mutation(({ ctx, input }) => ackEvent(caller(ctx), input.event_id)),
  listActions: operatorProcedure.input(listActionsInputSchema).query(({ ctx, input }) => listActions(caller(ctx), input)),
  reviewAction: operatorProcedure.meta({ effect: 'input' }).input(reviewActionInputSchema).mutation(({ ctx, input }) => reviewAction(caller(ctx), input.action_id, input.decision)),
  pause: operatorProcedure.input(watchKeyInput).mutation(({ ctx, input }) => pausePolicy(caller(ctx), input.watch_key)),
  listParks: operatorProcedure.input(empty).query(({ ctx }) => listParks(caller(ctx))),
  // The operator must be one who may type (effect input); the resume itself then passes the
  // input attempt's gates as the supervisor, exactly like the scheduled one.
  resumePark: operatorProcedure.meta({ effect: 'input' }).input(parkIdInputSchema).mutation(({ ctx, input }) => resumeParkNow(caller(ctx), input.park_id)),
  cancelPark: operatorProcedure.input(parkIdInputSchema).mutation(({ ctx, input }) => cancelPark(caller(ctx), input.park_id)),
};
