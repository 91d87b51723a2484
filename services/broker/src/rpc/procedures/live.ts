/** Live pane output for the dashboard (web.sock only, over WebSocket): a subscription of
 * redacted screen frames, first the current screen, then one after each burst of output.
 * Read-gated on every frame like `sessions.tail` (see live/screen-stream.ts), and served
 * only for a signed-in operator: the subscription names the operator's session token
 * (the shared WebSocket carries no per-user header), checked before the first frame.
 * A `node:session` is followed through that node's reader on a tick, and its node's
 * outages are told in the stream (nodes/node-live.ts). */
import { AppError, paneOutputInputSchema } from '@terminal-mcp/contract';
import { pollScreenFrames, streamScreenFrames } from '../../live/screen-stream.js';
import { nodePolledHost } from '../../nodes/node-live.js';
import { validateSessionToken } from '../../webauth/sessions.js';
import { raise, webProcedure } from '../trpc.js';

export const live = {
  paneOutput: webProcedure.input(paneOutputInputSchema).subscription(async function* ({ ctx, input, signal }) {
    const valid = validateSessionToken(ctx.deps.webauth, input.operatorSession);
    if (!valid || valid.user.mustChangePassword) {
      ctx.deps.log.warn({ event: 'security.operator_session_refused', role: ctx.role, path: 'live.paneOutput' }, 'live output without an operator session refused');
      raise(new AppError('UNAUTHENTICATED', 'sign in to the dashboard first'));
    }
    // The read audit names the operator whose token opened the stream (as withOperator
    // does for every other web.sock call), not the actor label of the shared connection.
    const caller = { role: ctx.role, actor: `web:${valid!.user.username}` };
    const { host, ref: session } = ctx.deps.hosts.resolveSession(input.session);
    if (host.node !== undefined) {
      yield* pollScreenFrames({ reader: host.reader, caller, name: session, shownAs: input.session, pane: input.pane, host: nodePolledHost(host), signal });
      return;
    }
    yield* streamScreenFrames({
      reader: host.reader,
      caller,
      paneWatch: ctx.deps.live.paneWatch,
      name: input.session,
      pane: input.pane,
      signal,
    });
  }),
};
