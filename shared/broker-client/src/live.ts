/**
 * A broker client that also carries subscriptions: subscriptions go over one WebSocket
 * on the role's Unix socket (`wsLink`), everything else over the call link as in
 * createBrokerClient. The dashboard's server code uses it for `live.paneOutput`.
 *
 * Reconnects by itself: when the broker restarts on the same socket, the WebSocket client
 * retries with backoff and resubscribes every open subscription, which starts again with
 * a fresh first frame (measured here: SSE loses events across a restart; wsLink does
 * not lose the subscription). A subscription the broker ENDS with an error (session
 * gone, access revoked) is not retried: the caller sees it in `onError`.
 */
import { createWSClient, splitLink, wsLink } from '@trpc/client';
import { BROKER_HEADERS, type SocketRole } from '@terminal-mcp/contract';
import { WebSocket as NodeWebSocket } from 'ws';
import { BrokerCallConnection, callLink, unixWebSocketUrl } from './call-link.js';
import { bindableClient, defaultSocketPath, type BrokerClient, type BrokerClientOptions } from './index.js';

type WebSocketImplementation = NonNullable<Parameters<typeof createWSClient>[0]['WebSocket']>;

export interface BrokerLiveClientOptions<R extends SocketRole> extends BrokerClientOptions<R> {
  /** Delay before reconnect attempt `attempt` (0-based). Default: 100 ms doubling, at most 2 s. */
  retryDelayMs?: (attempt: number) => number;
  onOpen?: () => void;
  onClose?: (cause?: { code?: number }) => void;
}

export interface BrokerLiveClient<R extends SocketRole> {
  /** The typed client: `.subscribe()` on subscriptions, `.query()`/`.mutate()` as usual. */
  readonly client: BrokerClient<R>;
  /** Ends every subscription (they complete) and closes the WebSocket; no reconnects. */
  close(): Promise<void>;
}

/** `ws`'s WebSocket, sending the actor header on every (re)connect. (The connection is
 * shared by every subscription, so it carries no operator session: subscriptions on
 * web.sock are read-gated per frame, not per user.) */
function webSocketWithActor(actor: (() => string | undefined) | undefined): WebSocketImplementation {
  class BrokerWebSocket extends NodeWebSocket {
    constructor(address: string | URL, protocols?: string | string[]) {
      const name = actor?.();
      super(address, protocols ?? [], name ? { headers: { [BROKER_HEADERS.actor]: name } } : {});
    }
  }
  return BrokerWebSocket as unknown as WebSocketImplementation;
}

export function createBrokerLiveClient<R extends SocketRole>(options: BrokerLiveClientOptions<R>): BrokerLiveClient<R> {
  const socketPath = options.socketPath ?? defaultSocketPath(options.role, options.env);
  const connection = new BrokerCallConnection(socketPath);
  const wsClient = createWSClient({
    url: unixWebSocketUrl(socketPath),
    WebSocket: webSocketWithActor(options.actor),
    retryDelayMs: options.retryDelayMs ?? ((attempt) => Math.min(100 * 2 ** attempt, 2_000)),
    // Finds a broker that stopped answering without closing the socket.
    keepAlive: { enabled: true, intervalMs: 10_000, pongTimeoutMs: 3_000 },
    ...(options.onOpen ? { onOpen: options.onOpen } : {}),
    ...(options.onClose ? { onClose: options.onClose } : {}),
  });
  const subscriptions = wsLink({ client: wsClient });
  const client = bindableClient<R>(
    (headers) => [splitLink({ condition: (op) => op.type === 'subscription', true: subscriptions, false: callLink({ socketPath, headers, connection }).link })] as never,
    options,
  );
  return {
    client,
    async close() {
      await wsClient.close();
      connection.close();
    },
  };
}
