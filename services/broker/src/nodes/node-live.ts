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
import type { SessionReader } from '../reads/session-reader.js';
import { hostOfSession } from './host-route.js';
import { qualify } from './node-names.js';
import type { NodeSet } from './node-set.js';
import { NODE_WAIT_TICK_MS } from './node-waits.js';

/** How often a node session's live view looks at its pane (as often as a wait on a node does). */
export const NODE_LIVE_TICK_MS = NODE_WAIT_TICK_MS;

export interface NodeLiveRoute {
  /** The session's name on the node. */
  readonly session: string;
  readonly reader: SessionReader;
  readonly host: PolledHost;
}

/** The route of a live view of `qualified`, or undefined for this host's sessions (a bare
 * name or `local:`). SESSION_NOT_FOUND for a node that is not configured. A node that is
 * down is routed all the same: its stream starts by saying so. */
export function nodeLiveRoute(nodes: NodeSet | undefined, qualified: string): NodeLiveRoute | undefined {
  const { node, ref: session } = hostOfSession(nodes, qualified);
  if (node === undefined || nodes === undefined) return undefined;
  const n = nodes.get(node);
  if (n === undefined) return undefined;
  return {
    session,
    reader: n.reader,
    host: {
      tickMs: NODE_LIVE_TICK_MS,
      unavailable() {
        try {
          nodes.connected(node);
          return null;
        } catch (err) {
          return err as AppError;
        }
      },
      outageOf: (err) => nodes.unavailableOr(node, err),
      label: (frame) => ({ ...frame, session: qualify(node, frame.session), sessionId: qualify(node, frame.sessionId) }),
    },
  };
}
