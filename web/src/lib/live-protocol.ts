/**
 * The browser <-> web server live-output protocol on `/live` (one WebSocket per page,
 * many sessions). The browser only ever names sessions; everything it receives is what
 * the broker sent for sessions the broker lets the web role read.
 */
export type LiveClientMessage = { op: 'subscribe'; session: string } | { op: 'unsubscribe'; session: string };

export type LiveServerMessage =
  /** The whole visible screen, redacted by the broker, as terminal bytes that redraw it
   * (`cols` x `rows` is the pane's size): write it as it is. */
  | { kind: 'screen'; session: string; data: string; cols?: number; rows?: number }
  /** The subscription was refused or ended with this error code. */
  | { kind: 'error'; session: string; code: string }
  | { kind: 'end'; session: string };

export const LIVE_PATH = '/live';
/** Upper bound on what a browser may send in one message. */
export const LIVE_MAX_CLIENT_MESSAGE_BYTES = 2048;
export const LIVE_MAX_SUBSCRIPTIONS = 64;
