import type { PaneIdentityFacts } from './pane-identity.js';
/** What the broker knows about tmux, as facts read from the server at the moment of
 * asking. Everything is addressed by id (`$3`, `@5`, `%7`), never by name: tmux
 * resolves names by prefix and glob, which would let `foo` hit `foobar`. */

export interface PaneFacts {
  paneId: string; // "%7"
  panePid: number;
  currentCommand: string;
  /** `#{pane_in_mode}`: 1 in copy mode (or any other mode). */
  inMode: boolean;
  width: number;
  height: number;
  historySize: number;
  /** `#{window_activity}` (unix seconds): the last output in the pane's window. Unlike
   * `#{session_activity}` it is not bumped when a client (such as our output watcher)
   * attaches, so it is what "how long has the pane been quiet" is measured from. */
  windowActivity: number;
  /** Cursor cell, 0-based from the top left of the visible screen; `visible` is false
   * when the program hid the cursor. */
  cursor: { x: number; y: number; visible: boolean };
}

export interface SessionFacts {
  /** pid of the tmux server; with sessionId and created it pins identity across
   * server restarts (ids restart at $0). */
  serverPid: number;
  sessionId: string; // "$3"
  name: string;
  /** unix seconds */
  created: number;
  /** Clients attached, not counting the broker's own output watchers. */
  attached: number;
  windows: number;
  /** unix seconds of the session's last output: the latest `#{window_activity}` of its
   * windows (never `#{session_activity}`, which attaching clients bump and output does
   * not). */
  activity: number;
  activePane: PaneFacts | null;
}

/** A pane of a session as `list-panes -s` lists it: its facts and where it sits. */
export interface WindowPaneFacts extends PaneFacts {
  windowId: string; // "@4"
  windowIndex: number;
  paneIndex: number;
  /** The session's active pane: active in its window, and its window the session's
   * active one (what a read or an input without `pane` reaches). */
  active: boolean;
}

/** Every pane and window of one session, from one snapshot of the server. `name` of a
 * window is whatever the pane's programs made it (tmux renames windows after their
 * command): data only. */
export interface SessionPanes {
  serverPid: number;
  sessionId: string;
  created: number;
  panes: WindowPaneFacts[];
  windows: { windowId: string; index: number; name: string }[];
}

/** A session as a plain listing shows it (`listSummaries`): the session's facts and of its
 * active pane only what a summary shows. Every SessionFacts is one. Not a read target:
 * reading needs the full pane facts (listSessions, findSession). */
export type ListedSession = Omit<SessionFacts, 'activePane'> & { activePane: Pick<PaneFacts, 'currentCommand' | 'inMode'> | null };

/** One pane as the recorder's scan sees it: ids and numbers only (no free-form field). */
export interface PanePipeFacts {
  readonly serverPid: number;
  readonly sessionId: string;
  readonly created: number;
  readonly paneId: string;
  readonly panePid: number;
  /** `#{pane_pipe}`: some pipe (ours or anyone's) is open on the pane. */
  readonly piped: boolean;
  /** `#{pane_dead}`: the pane's program exited (remain-on-exit keeps it). */
  readonly dead: boolean;
}

/** The pane as it was when its pipe opened, and its text at that moment. */
export interface OpenedPanePipe {
  readonly paneId: string;
  readonly panePid: number;
  readonly width: number;
  readonly height: number;
  readonly cursorX: number;
  readonly cursorY: number;
  /** `capture-pane -p -J` from `historyLines` above the screen to its bottom: wrapped
   * lines joined, no escape sequences, trailing spaces kept. Not redacted. */
  readonly text: string;
}

/** Output taps through tmux's `pipe-pane` (pane-pipe.ts), for the transcript recorder. */
export interface PanePipes {
  /** Every pane of the server with its pipe and dead flags (ids and numbers only). */
  listPanePipes(): Promise<PanePipeFacts[]>;
  /** Pipes the pane's output into the FIFO at `fifoPath` and captures, in the same turn
   * of tmux's loop, its text (`historyLines` above the screen) and cursor. */
  openPanePipe(paneId: string, fifoPath: string, historyLines: number): Promise<OpenedPanePipe>;
  /** Closes the pane's pipe; ignores a pane that is gone. */
  closePanePipe(paneId: string): Promise<void>;
  /** Resolves once no command is in flight on the control client, or after `maxWaitMs`
   * (TmuxControlClient.whenIdle): the recorder writes its commands only then. */
  whenIdle(maxWaitMs: number): Promise<void>;
}

export interface CaptureOptions {
  /** tmux -S: line number (0 = top of visible screen, negative = scrollback) or '-' for the start of history */
  start?: number | '-';
  /** tmux -E: line number or '-' for the bottom of the visible screen */
  end?: number | '-';
  /** keep escape sequences (tmux -e) */
  escapes?: boolean;
}

export interface TmuxHealth {
  ok: boolean;
  detail: string;
}

/** Why tmux's set of sessions may have changed (adapter.ts `onSessionsChanged`):
 * - `sessions-changed`: tmux's `%sessions-changed` (a session was created or closed; tmux
 *   3.3a sends no `%session-closed` to a control client attached elsewhere);
 * - `session-renamed`: `%session-renamed $id name`;
 * - `connected`: the control client (re)connected, possibly to a new server whose ids
 *   restart at `$0`;
 * - `server-gone`: no tmux server listens on the socket any more (probed, not guessed:
 *   a dropped connection alone is not this), so every session it had is gone. */
export type SessionsChangeCause = 'sessions-changed' | 'session-renamed' | 'connected' | 'server-gone';

export interface SessionsChange {
  readonly cause: SessionsChangeCause;
}

/** One line for the control client (control-client.ts BatchCommand); `compound`: its
 * commands answer with several blocks, all returned as `parts`. */
export interface ControlLine {
  readonly command: string;
  readonly compound?: boolean;
}

export interface ControlLineReply {
  readonly ok: boolean;
  readonly lines: readonly string[];
  readonly parts?: readonly { readonly ok: boolean; readonly lines: readonly string[] }[];
}

/** The control client's write path, for the input delivery only (deliver.ts; handed to
 * the input services, not part of TmuxAdapter): writes the lines in one write and answers
 * their replies, or null when the client is not connected and nothing was written. A
 * rejection after that means the lines were written and their outcome is unknown. */
export type InputControl = (lines: readonly ControlLine[]) => Promise<ControlLineReply[]> | null;

export interface TmuxAdapter {
  /** Every real session; the broker's hidden control session is excluded. */
  listSessions(): Promise<SessionFacts[]>;
  /** Every real session with only the facts a session list shows, from a lighter format
   * (tmux expands far fewer fields per session; it pays at hundreds of sessions). */
  listSummaries(): Promise<ListedSession[]>;
  /** The real session tmux has under exactly `name` (never a prefix or glob match), with
   * its facts read now; null when there is none. Same facts as the `listSessions` entry. */
  findSession(name: string): Promise<SessionFacts | null>;
  /** Facts of one pane, re-read now; null when it no longer exists. */
  paneFacts(paneId: string): Promise<PaneFacts | null>;
  /** Every pane and window of the session with this id (`$3`), read now in one write;
   * null when the session is gone. */
  listPanes(sessionId: string): Promise<SessionPanes | null>;
  /** Pane text with wrapped lines joined (-J) so redaction sees whole secrets. */
  capturePane(paneId: string, options?: CaptureOptions): Promise<string>;
  /** The pane's facts and a capture (as capturePane) in one write, which tmux runs in one
   * turn of its loop: the capture's line numbers are relative to the screen and history
   * these facts describe (a pane that scrolls between two round trips cannot shift them).
   * null when the pane is gone; `text` null when the capture failed. */
  capturePaneWithFacts?(paneId: string, options: CaptureOptions): Promise<{ facts: PaneFacts; text: string | null } | null>;
  /** The active pane of the session under `name` as the last listing or read saw it: a
   * HINT for planning a capture ahead of the identity check (reads/session-reader.ts),
   * never a fact to act on. Forgotten whenever sessions change. */
  paneHint?(name: string): PaneFacts | null;
  health(): Promise<TmuxHealth>;
  /** The pane's identity and input facts now (pane-identity.ts), through the control
   * client; null when the pane is gone. Input delivery's re-read (deliver.ts), which
   * falls back to spawning tmux where this is missing or the client is not connected. */
  readPaneIdentity?(paneId: string): Promise<PaneIdentityFacts | null>;
  /** True while certainly no tmux server runs (the socket has no listener; the broker
   * attaches when one appears). False while connected, connecting or merely cut off. */
  noServer(): boolean;
  /** Calls `listener` after tmux reports that sessions were created, closed or renamed,
   * and when the connection to the server changes (see SessionsChange). Coalesced per
   * listener: one call in flight (until its promise settles) plus at most one queued,
   * which gets the latest change. No polling. Returns the unsubscribe function. */
  onSessionsChanged(listener: (change: SessionsChange) => Promise<unknown> | unknown): () => void;
  close(): Promise<void>;
}
