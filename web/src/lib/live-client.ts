/**
 * The page's one WebSocket to `/live` on this same server (never to the broker).
 * Sessions are multiplexed over it; after a drop it reconnects with backoff and
 * re-subscribes, so terminals survive a web server or broker restart. No polling: frames
 * arrive when the pane changes.
 */
import { LIVE_PATH, liveKey, type LiveClientMessage, type LiveServerMessage } from './live-protocol.js';

export type LiveHandler = (message: LiveServerMessage) => void;
export type ConnectionState = 'connecting' | 'open' | 'closed';

export class LiveConnection {
  private ws: WebSocket | undefined;
  /** Handlers by liveKey(session, pane), with the subscription they share. */
  private readonly handlers = new Map<string, { message: LiveClientMessage; set: Set<LiveHandler> }>();
  private readonly stateListeners = new Set<(s: ConnectionState) => void>();
  private retryMs = 500;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private stopped = false;
  state: ConnectionState = 'connecting';

  constructor(private readonly onSignedOut: () => void) {
    this.connect();
  }

  onState(listener: (s: ConnectionState) => void): () => void {
    this.stateListeners.add(listener);
    listener(this.state);
    return () => this.stateListeners.delete(listener);
  }

  /** `pane`: one pane of the session (`%id` or `window.pane`) instead of its active one. */
  subscribe(session: string, handler: LiveHandler, pane?: string): () => void {
    const key = liveKey(session, pane);
    let entry = this.handlers.get(key);
    if (!entry) {
      entry = { message: pane === undefined ? { op: 'subscribe', session } : { op: 'subscribe', session, pane }, set: new Set() };
      this.handlers.set(key, entry);
      this.send(entry.message);
    }
    entry.set.add(handler);
    return () => {
      const e = this.handlers.get(key);
      if (!e) return;
      e.set.delete(handler);
      if (e.set.size === 0) {
        this.handlers.delete(key);
        this.send({ ...e.message, op: 'unsubscribe' });
      }
    };
  }

  /** Asks for a fresh subscription of every pane of `session` watched here (e.g. after
   * access was granted again). */
  resubscribe(session: string): void {
    for (const { message } of this.handlers.values()) {
      if (message.session !== session) continue;
      this.send({ ...message, op: 'unsubscribe' });
      this.send(message);
    }
  }

  close(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.ws?.close(1000);
  }

  private setState(s: ConnectionState) {
    this.state = s;
    for (const l of this.stateListeners) l(s);
  }

  private send(message: LiveClientMessage) {
    if (this.ws?.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(message));
  }

  private connect() {
    if (this.stopped) return;
    this.setState('connecting');
    const url = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}${LIVE_PATH}`;
    const ws = new WebSocket(url);
    this.ws = ws;
    ws.onopen = () => {
      this.retryMs = 500;
      this.setState('open');
      for (const { message } of this.handlers.values()) ws.send(JSON.stringify(message));
    };
    ws.onmessage = (e) => {
      let m: LiveServerMessage;
      try {
        m = JSON.parse(String(e.data)) as LiveServerMessage;
      } catch {
        return;
      }
      for (const h of this.handlers.get(liveKey(m.session, m.pane))?.set ?? []) h(m);
    };
    ws.onclose = (e) => {
      if (this.ws !== ws) return;
      this.setState('closed');
      if (this.stopped) return;
      if (e.code === 4001) {
        this.onSignedOut();
        return;
      }
      this.timer = setTimeout(() => this.connect(), this.retryMs);
      this.retryMs = Math.min(this.retryMs * 2, 15_000);
    };
  }
}
