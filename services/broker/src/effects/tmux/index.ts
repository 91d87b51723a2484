/** The broker's tmux effects: a pure control-mode stream parser (control-protocol.ts),
 * the `tmux -C` process wrapper (control-process.ts), the command client and the pane
 * output watchers over both, and the adapter built on the command client. */
export type { CaptureOptions, PaneFacts, SessionFacts, TmuxAdapter, TmuxHealth } from './types.js';
export { createTmuxAdapter, type ControlModeTmuxAdapter, type TmuxAdapterOptions } from './adapter.js';
export { assertPaneId, assertSessionId, type TmuxLogger } from './format.js';
export { ControlStream, decodeControlOutput, type ControlEvent } from './control-protocol.js';
export { spawnControlProcess, tmuxEnvironment, tmuxGlobalArgs, type ControlProcess } from './control-process.js';
export { HIDDEN_SESSION_NAME, NO_SERVER_HINT } from './hidden-session.js';
export { probeTmuxServer, tmuxSocketPath } from './server-socket.js';
export {
  TmuxControlClient,
  type ControlClientOptions,
  type ControlConnection,
  type ControlNotification,
  type ControlReply,
  type ControlState,
  type RunOptions,
} from './control-client.js';
export {
  createPaneWatcher,
  WATCHER_TERM,
  type PaneOutputChunk,
  type PaneWatcher,
  type PaneWatcherOptions,
  type PaneWatchListener,
  type PaneWatchSubscription,
} from './pane-watch.js';
