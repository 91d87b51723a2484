/**
 * Input procedures: everything that types into a pane (mutations) and the one-call input
 * context (a query). All sends go through input/attempt.ts: gates on facts re-read from
 * tmux, an audit row before acting, a per-pane lease, identity re-checked at the moment of
 * sending. The gateway gets them all; the dashboard only its text box
 * (`dashboardInput.sendText`), for a signed-in operator; the observer none.
 */
import {
  readAppErrorData,
  inputContextInputSchema,
  sendBoundInputSchema,
  sendKeysInputSchema,
  runInputSchema,
  sendTaskInputSchema,
  sendTextInputSchema,
  type SendTextInput,
} from '@terminal-mcp/contract';
import { inputContextOf } from '../../input/context.js';
import { recordRejectedInputCall } from '../../input/rejected-call.js';
import { answerWithNode } from '../../input/node-route.js';
import { sendKeys, sendText } from '../../input/send.js';
import type { TargetRef } from '../../access/target.js';
import { resumeRun, runCommand } from '../../input/run.js';
import { sendTask } from '../../input/task.js';
import type { BrokerContext } from '../context.js';
import { operatorProcedure } from '../operator.js';
import { gatewayProcedure } from '../trpc.js';

/** The schemas already require exactly one of the two. */
const targetOf = (input: { session?: string | undefined; pane?: string | undefined; binding?: string | undefined }): TargetRef =>
  input.binding !== undefined ? { binding: input.binding } : { session: input.session ?? '', pane: input.pane };

/** Text to a named session: terminal_send_text on the gateway, dashboard_text from the
 * dashboard (its own tool name, so the audit shows at a glance that an operator typed it;
 * the actor says which one). */
const sendTextToSession = (ctx: BrokerContext, input: SendTextInput, tool: 'terminal_send_text' | 'dashboard_text') =>
  answerWithNode(ctx, { session: input.session }, () =>
    sendText(ctx, {
      tool,
      target: { session: input.session, pane: input.pane },
      text: input.text,
      enter: input.enter ?? false,
      dryRun: input.dry_run ?? false,
      clearLine: input.clear_line ?? false,
      ...(input.idempotency_key !== undefined ? { idempotencyKey: input.idempotency_key } : {}),
    }),
  );

/** A call its schema refuses is audited too (input/rejected-call.ts). The middleware sits
 * before `.input()`, so it sees the parser's BAD_REQUEST; errors the procedures throw
 * themselves are audited by the input path. */
async function auditSchemaRefusal(
  ctx: BrokerContext,
  path: string,
  result: { ok: boolean; error?: { code: string; cause?: unknown } },
  getRawInput: () => Promise<unknown>,
  tool?: string,
): Promise<void> {
  if (result.ok || result.error?.code !== 'BAD_REQUEST' || readAppErrorData(result.error.cause)) return;
  recordRejectedInputCall(ctx, path, await getRawInput().catch(() => undefined), 'INVALID_ARGUMENT', tool);
}

const inputProcedure = gatewayProcedure.use(async ({ ctx, path, getRawInput, next }) => {
  const result = await next();
  await auditSchemaRefusal(ctx, path, result, getRawInput);
  return result;
});

/** Every send types into a pane: the input attempt authorizes it at delivery
 * (input/authorize.ts), audits a refusal and answers it like every other refusal. */
const sendProcedure = inputProcedure.meta({ effect: 'delivery' });

export const input = {
  context: inputProcedure.input(inputContextInputSchema).query(({ ctx, input }) => inputContextOf(ctx, targetOf(input))),

  sendText: sendProcedure.input(sendTextInputSchema).mutation(({ ctx, input }) => sendTextToSession(ctx, input, 'terminal_send_text')),

  // A binding pinned on a node answers with `node:session`, as a send to that name does.
  sendBound: sendProcedure.input(sendBoundInputSchema).mutation(({ ctx, input }) =>
    answerWithNode(ctx, { binding: input.binding }, () =>
      sendText(ctx, { tool: 'terminal_send_bound', target: { binding: input.binding }, text: input.text, enter: input.enter ?? false, dryRun: input.dry_run ?? false }),
    ),
  ),

  sendKeys: sendProcedure.input(sendKeysInputSchema).mutation(({ ctx, input }) =>
    answerWithNode(ctx, targetOf(input), () =>
      sendKeys(ctx, { target: targetOf(input), keys: input.keys, confirmSensitive: input.confirm_sensitive ?? false, dryRun: input.dry_run ?? false }),
    ),
  ),

  sendTask: sendProcedure.input(sendTaskInputSchema).mutation(({ ctx, input }) =>
    answerWithNode(ctx, targetOf(input), () =>
      sendTask(ctx, {
        target: targetOf(input),
        text: input.text,
        dryRun: input.dry_run ?? false,
        clearLine: input.clear_line ?? false,
        ...(input.idempotency_key !== undefined ? { idempotencyKey: input.idempotency_key } : {}),
      }),
    ),
  ),

  /** terminal_run: a command line at a shell prompt, typed through the same attempt; with
   * resume_token, collects a run that answered RUNNING (input/run.ts). */
  run: sendProcedure.input(runInputSchema).mutation(({ ctx, input }) =>
    input.resume_token !== undefined
      ? resumeRun(ctx, { token: input.resume_token, timeoutS: input.timeout_s })
      : answerWithNode(ctx, { session: input.session ?? '', pane: input.pane }, () =>
          runCommand(ctx, {
            target: { session: input.session ?? '', pane: input.pane },
            command: input.command ?? '',
            timeoutS: input.timeout_s,
            clearLine: input.clear_line,
            ...(input.idempotency_key !== undefined ? { idempotencyKey: input.idempotency_key } : {}),
          }),
        ),
  ),
};

/** The dashboard's text box: the same guarded, audited path, recorded under the operator
 * whose session token came with the call (`web:<username>`), never a name the caller
 * chose. */
const dashboardInputProcedure = (tool: 'dashboard_text' | 'dashboard_keys') =>
  operatorProcedure.meta({ effect: 'delivery' }).use(async ({ ctx, path, getRawInput, next }) => {
    const result = await next();
    await auditSchemaRefusal(ctx, path, result, getRawInput, tool);
    return result;
  });

export const dashboardInput = {
  sendText: dashboardInputProcedure('dashboard_text').input(sendTextInputSchema).mutation(({ ctx, input }) => sendTextToSession(ctx, input, 'dashboard_text')),
  /** The full view's take-over: keystrokes from the same allowlist, C-c/C-d confirmed. */
  sendKeys: dashboardInputProcedure('dashboard_keys').input(sendKeysInputSchema).mutation(({ ctx, input }) =>
    answerWithNode(ctx, targetOf(input), () =>
      sendKeys(ctx, { tool: 'dashboard_keys', target: targetOf(input), keys: input.keys, confirmSensitive: input.confirm_sensitive ?? false, dryRun: input.dry_run ?? false }),
    ),
  ),
};
