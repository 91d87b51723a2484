/**
 * Live pane output from the broker: the `live.paneOutput` subscription on web.sock, over
 * the broker-client's live (WebSocket) client, which reconnects and resubscribes by
 * itself. The broker read-gates and redacts every frame; this module only adapts frames
 * to the browser protocol. One broker connection serves every browser socket.
 */
import { createBrokerLiveClient, describeBrokerFailure, type BrokerLiveClient } from '@terminal-mcp/broker-client';
import type { PaneLiveEvent, PaneScreenFrame } from '@terminal-mcp/contract';
import type { LiveServerMessage } from '../live-protocol.js';

export interface LiveSink {
  frame(message: LiveServerMessage): void;
  error(code: string): void;
  end(): void;
}

export interface LiveSource {
  /** `operatorSession`: the browser's login token; the broker serves frames only for a
   * signed-in operator. */
  subscribe(session: string, sink: LiveSink, operatorSession: string, pane?: string): () => void;
  close(): Promise<void>;
}

/** A broker frame is the whole screen as terminal bytes that redraw it, sized like the
 * pane: the browser writes it as it is. */
export function toBrowserFrame(frame: PaneScreenFrame): LiveServerMessage {
  return { kind: 'screen', session: frame.session, data: frame.data, cols: frame.width, rows: frame.height };
}

/** A node session's outage (its node is down): the browser keeps the last screen and says
 * why; the stream goes on by itself when the node is back. */
export function toBrowserMessage(event: PaneLiveEvent): LiveServerMessage {
  if (event.type === 'screen') return toBrowserFrame(event);
  return { kind: 'unavailable', session: event.session, code: event.code, message: event.message, hint: event.hint };
}

export function createLiveSource(live?: BrokerLiveClient<'web'>): LiveSource {
  let owned: BrokerLiveClient<'web'> | undefined;
  const client = () => live ?? (owned ??= createBrokerLiveClient({ role: 'web', actor: () => 'dashboard-live' }));
  return {
    subscribe(session, sink, operatorSession, pane) {
      const sub = client().client.live.paneOutput.subscribe(
        { session, operatorSession, ...(pane !== undefined ? { pane } : {}) },
        {
          // The browser asked for `session` (and `pane`); label frames with those, not the broker's.
          onData: (event) => sink.frame({ ...toBrowserMessage(event), session, ...(pane !== undefined ? { pane } : {}) }),
          onError: (err) => sink.error(describeBrokerFailure(err).code),
          onComplete: () => sink.end(),
        },
      );
      return () => sub.unsubscribe();
    },
    async close() {
      await owned?.close();
    },
  };
}
