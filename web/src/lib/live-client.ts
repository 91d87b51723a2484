/**
 * The page's one WebSocket to `/live` on this same server (never to the broker).
 * Sessions are multiplexed over it; after a drop it reconnects with backoff and
 * re-subscribes, so terminals survive a web server or broker restart. No polling: frames
 * arrive when the pane changes.
 */
import { LIVE_PATH, type LiveServerMessage } from './live-protocol.js';

export type LiveHandler = (message: LiveServerMessage) => void;
export type ConnectionState = 'connecting' | 'open' | 'closed';

export class LiveConnection {
  private ws: WebSocket | undefined;
  private readonly handlers = new Map<string, Set<LiveHandler>>();
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

  subscribe(session: string, handler: LiveHandler): () => void {
    let set = this.handlers.get(session);
    if (!set) {
      set = new Set();
      this.handlers.set(session, set);
      this.send({ op: 'subscribe', session });
    }
    set.add(handler);
    return () => {
      const s = this.handlers.get(session);
      if (!s) return;
      s.delete(handler);
      if (s.size === 0) {
        this.handlers.delete(session);
        this.send({ op: 'unsubscribe', session });
      }
    };
  }

  /** Asks for a fresh subscription (e.g. after access was granted again). */
  resubscribe(session: string): void {
    if (!this.handlers.has(session)) return;
    this.send({ op: 'unsubscribe', session });
    this.send({ op: 'subscribe', session });
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

  private send(message: { op: 'subscribe' | 'unsubscribe'; session: string }) {
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
      for (const session of this.handlers.keys()) ws.send(JSON.stringify({ op: 'subscribe', session }));
    };
    ws.onmessage = (e) => {
      let m: LiveServerMessage;
      try {
        m = JSON.parse(String(e.data)) as LiveServerMessage;
      } catch {
        return;
      }
      for (const h of this.handlers.get(m.session) ?? []) h(m);
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
