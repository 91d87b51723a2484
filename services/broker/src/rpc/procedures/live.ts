/** Live pane output for the dashboard (web.sock only, over WebSocket): a subscription of
 * redacted screen frames, first the current screen, then one after each burst of output.
 * Read-gated on every frame like `sessions.tail` (see live/screen-stream.ts). */
import { paneOutputInputSchema } from '@terminal-mcp/contract';
import { streamScreenFrames } from '../../live/screen-stream.js';
import { webProcedure } from '../trpc.js';

export const live = {
  paneOutput: webProcedure.input(paneOutputInputSchema).subscription(async function* ({ ctx, input, signal }) {
    yield* streamScreenFrames({
      reader: ctx.deps.reader,
      tmux: ctx.deps.tmux,
      paneWatch: ctx.deps.live.paneWatch,
      name: input.session,
      signal,
    });
  }),
};
