/**
 * Waits on `node:session` (terminal_wait_for_state, terminal_resume_wait): the same wait
 * (live/wait-for-state.ts) over the node's own reader, so the node's read gate, status
 * rule and identity pinning apply on every evaluation, and the answer names the node.
 *
 * No output watcher on a node: a watcher is one control client per watched session, and on
 * a node that would be one more ssh channel per wait. The wait evaluates on a short tick
 * instead (each evaluation is one capture over the node's one control connection). Where
 * a wait runs is the HostSet's (host-set.ts); rpc/procedures/wait.ts runs it on that Host.
 */
import { AppError } from '@terminal-mcp/contract';
import type { PaneWatcher } from '../effects/tmux/pane-watch.js';

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
