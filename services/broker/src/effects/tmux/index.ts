/** The broker's tmux effects: one control-mode client and the adapter built on it. */
export type { CaptureOptions, PaneFacts, SessionFacts, TmuxAdapter, TmuxHealth } from './types.js';
export { createTmuxAdapter, assertPaneId, assertSessionId, type ControlModeTmuxAdapter, type TmuxAdapterOptions } from './adapter.js';
export {
  TmuxControlClient,
  HIDDEN_SESSION_NAME,
  decodeControlOutput,
  tmuxEnvironment,
  tmuxGlobalArgs,
  type ControlClientOptions,
  type ControlConnection,
  type ControlNotification,
  type ControlReply,
  type ControlState,
  type RunOptions,
  type TmuxLogger,
} from './control-client.js';
export {
  createPaneWatcher,
  WATCHER_TERM,
  type PaneOutputChunk,
  type PaneWatcher,
  type PaneWatcherOptions,
  type PaneWatchListener,
  type PaneWatchSubscription,
  type WatchedSessionIdentity,
} from './pane-watch.js';
