/**
 * The browser <-> web server live-output protocol on `/live` (one WebSocket per page,
 * many sessions). The browser only ever names sessions (and optionally one pane of a
 * session: `%id` or `window.pane`, checked by the web server and again by the broker);
 * everything it receives is what the broker sent for sessions the broker lets the web role
 * read. A subscription is one (session, pane) pair; messages name both.
 */
export type LiveClientMessage = { op: 'subscribe' | 'unsubscribe'; session: string; pane?: string };

export type LiveServerMessage =
  /** The whole visible screen, redacted by the broker, as terminal bytes that redraw it
   * (`cols` x `rows` is the pane's size): write it as it is. */
  | { kind: 'screen'; session: string; pane?: string; data: string; cols?: number; rows?: number }
  /** A node session whose node is out of reach (NODE_UNAVAILABLE, with the node's reason and
   * hint): no screen until it is back, then `screen` messages go on. */
  | { kind: 'unavailable'; session: string; pane?: string; code: string; message: string; hint: string }
  /** The subscription was refused or ended with this error code. */
  | { kind: 'error'; session: string; pane?: string; code: string }
  | { kind: 'end'; session: string; pane?: string };

/** One subscription's key: a session and, optionally, a pane of it. */
export const liveKey = (session: string, pane?: string) => (pane === undefined ? session : `${session}\n${pane}`);

export const LIVE_PATH = '/live';
/** Upper bound on what a browser may send in one message. */
export const LIVE_MAX_CLIENT_MESSAGE_BYTES = 2048;
export const LIVE_MAX_SUBSCRIPTIONS = 64;
