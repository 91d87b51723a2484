/**
 * The hand-off to a person: an agent asks for one (terminal_request_human, gateway), the
 * dashboard lists what waits for a person and answers a secret prompt through the secret
 * entry (web, signed-in operator). The secret entry is an input attempt like every send
 * (input/secret-entry.ts); the operator's fresh password is checked here, before it, and
 * its time handed to the one input authorization, which decides.
 */
import { listNoticesInputSchema, notifyUserInputSchema, promptReaderInputSchema, readAppErrorData, requestHumanInputSchema, secretEntryInputSchema } from '@terminal-mcp/contract';
import { auditedRead } from '../../audit/record-read.js';
import { notifyUser } from '../../attention/notify-user.js';
import { requestHuman } from '../../attention/request-human.js';
import { answerSecretPrompt } from '../../input/secret-entry.js';
import { promptReaderOf } from '../../input/prompt-reader.js';
import { recordRejectedInputCall } from '../../input/rejected-call.js';
import { lastReauthentication } from '../../webauth/reauthenticate.js';
import { validateSessionToken } from '../../webauth/sessions.js';
import { SECRET_REAUTH_FRESH_MS } from '../../policy/authority.js';
import type { BrokerContext } from '../context.js';
import { operatorProcedure } from '../operator.js';
import { gatewayProcedure } from '../trpc.js';

/** The status read a notice is checked with: a node's session (`gpu:agent-1`) through that
 * node's gate and reader, so the notice names it so and the dashboard's secret entry answers
 * it through the node (input/node-route.ts). */
const statusReader = (ctx: BrokerContext) => ({
  status: (session: string) => ctx.deps.hosts.read(session, (host, s) => host.reader.status(s)),
});

export const humanGateway = {
  /** A read of the pane's status (read audit) that leaves a notice for the person: a
   * write (Terminal MCP's own state), so a read-only OAuth token may not. */
  request: gatewayProcedure
    .input(requestHumanInputSchema)
    .mutation(({ ctx, input }) => auditedRead(ctx, 'terminal_request_human', input.session, () => requestHuman({ reader: statusReader(ctx), attention: ctx.deps.attention, perMinute: ctx.deps.config.notifications.agent_per_minute }, ctx.actor, input), () => ({}))),

  /** notify_user: one line for the person, rate-limited per client (a write, like a note);
   * the same budget as terminal_request_human. */
  notify: gatewayProcedure
    .input(notifyUserInputSchema)
    .mutation(({ ctx, input }) => notifyUser({ reader: statusReader(ctx), attention: ctx.deps.attention, perMinute: ctx.deps.config.notifications.agent_per_minute }, ctx.actor, input)),
};

export const humanDashboard = {
  /** Notices for the dashboard (live list and the browser's Notification API). */
  notices: operatorProcedure.input(listNoticesInputSchema).query(({ ctx, input }) => ctx.deps.attention.list(input.after_id)),

  /** The program that would read the secret entry's answer (executable, parent chain,
   * user) and whether the entry would type into it: shown next to the entry. */
  promptReader: operatorProcedure.input(promptReaderInputSchema).query(async ({ ctx, input }) => {
    const reader = await promptReaderOf(ctx, { session: input.session, pane: input.pane });
    // The same window the input authorization applies (policy/authority.ts): within it the
    // sign-in is the proof, so the page leaves the password field out.
    const valid = validateSessionToken(ctx.deps.webauth, ctx.operatorToken ?? '');
    const age = valid ? ctx.deps.webauth.now() - valid.session.createdAt : Number.POSITIVE_INFINITY;
    return { ...reader, password_needed: !(age >= 0 && age <= SECRET_REAUTH_FRESH_MS), confirm_required: ctx.deps.config.human_input.confirm_program };
  }),

  answerSecret: operatorProcedure
    .meta({ effect: 'delivery' })
    .use(async ({ ctx, path, getRawInput, next }) => {
      const result = await next();
      // A call its schema refused is still an input attempt: audited without the text.
      if (!result.ok && result.error.code === 'BAD_REQUEST' && !readAppErrorData(result.error.cause)) {
        recordRejectedInputCall(ctx, path, await getRawInput().catch(() => undefined), 'INVALID_ARGUMENT', 'dashboard_secret');
      }
      return result;
    })
    .input(secretEntryInputSchema)
    .mutation(async ({ ctx, input }) => {
      const reauthenticatedAt = await lastReauthentication(ctx.deps.webauth, ctx.operatorToken ?? '', input.operator_password, input.source_ip);
      const confirmedReader = input.confirmed_reader === undefined ? undefined : { pid: input.confirmed_reader.pid, exePath: input.confirmed_reader.exe_path };
      return answerSecretPrompt(ctx, { session: input.session, pane: input.pane, secret: input.secret, reauthenticatedAt, confirmedReader });
    }),
};
