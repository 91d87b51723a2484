/**
 * The dashboard's live view of `node:session` (live.paneOutput): the same screen frames as
 * for this host's sessions (live/screen-stream.ts `pollScreenFrames`), read through the
 * node's own reader, so the node's gate is asked on every capture, its redaction applies,
 * the session is pinned with the node's tmux server pid, and the stream is one row of the
 * read audit, named `node:session` (node-set.ts).
 *
 * No output watcher on a node (see node-waits.ts: it would be one more ssh channel per
 * watched session): the pane is captured every NODE_LIVE_TICK_MS over the node's one
 * control connection, and a frame is sent only when the screen changed. While the node is
 * down the stream says so (NODE_UNAVAILABLE with the node's hint) and captures nothing.
 */
import type { AppError } from '@terminal-mcp/contract';
import type { PolledHost } from '../live/screen-stream.js';
import type { Host } from './host-set.js';
import { NODE_WAIT_TICK_MS } from './node-waits.js';

/** How often a node session's live view looks at its pane (as often as a wait on a node does). */
export const NODE_LIVE_TICK_MS = NODE_WAIT_TICK_MS;

/** How a live view polls a node's pane: on a tick, saying so while the node is down, its
 * frames named as the caller names the session. A node that is down is polled all the
 * same: its stream starts by saying so. */
export function nodePolledHost(host: Host): PolledHost {
  return {
    tickMs: NODE_LIVE_TICK_MS,
    unavailable() {
      try {
        host.connected();
        return null;
      } catch (err) {
        return err as AppError;
      }
    },
    outageOf: (err) => host.outageOf(err),
    label: (frame) => ({ ...frame, session: host.qualify(frame.session), sessionId: host.qualify(frame.sessionId) }),
  };
}
