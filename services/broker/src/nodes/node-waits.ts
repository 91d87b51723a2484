/**
 * Waits on `node:session` (terminal_wait_for_state, terminal_resume_wait): the same wait
 * (live/wait-for-state.ts) over the node's own reader, so the node's read gate, status
 * rule and identity pinning apply on every evaluation, and the answer names the node.
 *
 * No output watcher on a node: a watcher is one control client per watched session, and on
 * a node that would be one more ssh channel per wait. The wait evaluates on a short tick
 * instead (each evaluation is one capture over the node's one control connection).
 */
import { AppError } from '@terminal-mcp/contract';
import type { PaneWatcher } from '../effects/tmux/pane-watch.js';
import type { SessionReader } from '../reads/session-reader.js';
import { hostOfSession } from './host-route.js';
import { qualify } from './node-names.js';
import type { NodeSet } from './node-set.js';

/** How often a wait on a node looks at the pane. */
export const NODE_WAIT_TICK_MS = 500;

/** A watcher that never attaches: the wait falls back to its tick. */
export const NO_NODE_PANE_WATCH: PaneWatcher = {
  watch() {
    throw new AppError('TMUX_UNAVAILABLE', 'no output watcher on a node', 'The wait looks at the pane on a tick instead.');
  },
  watchedSessions: () => [],
  close: async () => {},
};

export interface WaitRoute {
  /** undefined: this host. */
  readonly node: string | undefined;
  /** The session's name on its host. */
  readonly session: string;
  /** The node's reader; undefined for this host (the caller's own). */
  readonly reader: SessionReader | undefined;
}

/** Where a wait on `qualified` runs. Throws SESSION_NOT_FOUND for an unknown node and
 * NODE_UNAVAILABLE for a node that is down. */
export function waitRoute(nodes: NodeSet | undefined, qualified: string): WaitRoute {
  const { node, ref: session } = hostOfSession(nodes, qualified);
  if (node === undefined || nodes === undefined) return { node: undefined, session, reader: undefined };
  return { node, session, reader: nodes.connected(node).reader };
}

/** `run` on the route, its answer named with the node, a failure as NODE_UNAVAILABLE when
 * the node went away meanwhile. */
export async function onRoute<T extends { status: { session: string; session_id: string } }>(nodes: NodeSet | undefined, route: WaitRoute, run: () => Promise<T>): Promise<T> {
  if (route.node === undefined || nodes === undefined) return run();
  const node = route.node;
  try {
    const out = await run();
    return { ...out, status: { ...out.status, session: qualify(node, out.status.session), session_id: qualify(node, out.status.session_id) } };
  } catch (err) {
    throw nodes.unavailableOr(node, err);
  }
}
