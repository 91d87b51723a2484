/**
 * tRPC link for queries and mutations over the broker's call link (see
 * shared/contract/src/broker-link.ts): one WebSocket on the role's Unix socket, each call
 * one JSON message with its own headers, answered by id. It replaces one HTTP request per
 * call (request line, headers, body framing and tRPC's Fetch Request/Response adapter on
 * both ends), about a millisecond per call on a small VM; the routers, types and error
 * shapes stay tRPC's.
 *
 * The connection opens on the first call, is shared by concurrent calls, and closes after
 * `idleMs` without calls (the broker's idle exit counts connections, as it did HTTP
 * keep-alive ones). It never keeps the process alive while idle. A call in flight when
 * the connection drops fails with a connection error (ECONNRESET), which
 * describeBrokerFailure reports as BROKER_UNAVAILABLE; the next call connects again.
 */
import { TRPCClientError, type TRPCLink } from '@trpc/client';
import type { AnyRouter } from '@trpc/server';
import { observable } from '@trpc/server/observable';
import { BROKER_CALL_PATH, type BrokerCall, type BrokerCallReply } from '@terminal-mcp/contract';
import type { Socket } from 'node:net';
import { WebSocket } from 'ws';

export interface CallLinkOptions {
  socketPath: string;
  /** The headers of the call being made (evaluated when the call starts). */
  headers: () => Record<string, string>;
  /** Close the connection after this long without calls. Default 10 s. */
  idleMs?: number;
  /** Share this connection (the links of clients bound to different callers). */
  connection?: BrokerCallConnection;
}

interface Pending {
  resolve(reply: BrokerCallReply): void;
  reject(err: unknown): void;
}

const connectionLost = (cause?: unknown) => Object.assign(new Error('the broker closed the connection', cause ? { cause } : {}), { code: 'ECONNRESET' });

/** The ws package's address form for a Unix socket: `ws+unix://<absolute path>:<request path>`. */
export function unixWebSocketUrl(socketPath: string, requestPath = '/'): string {
  if (!socketPath.startsWith('/') || socketPath.includes(':')) {
    throw new Error('the broker socket path must be absolute and contain no ":"');
  }
  return `ws+unix://${socketPath}:${requestPath}`;
}

/** One call connection to one socket, opened when needed. */
export class BrokerCallConnection {
  private ws: WebSocket | null = null;
  private socket: Socket | null = null;
  private opening: Promise<WebSocket> | null = null;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private idleTimer: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(
    private readonly socketPath: string,
    private readonly idleMs = 10_000,
  ) {}

  async call(call: Omit<BrokerCall, 'id'>, signal?: AbortSignal): Promise<BrokerCallReply> {
    signal?.throwIfAborted();
    if (this.closed) throw connectionLost();
    const ws = await this.open();
    signal?.throwIfAborted();
    const id = this.nextId++;
    return new Promise<BrokerCallReply>((resolve, reject) => {
      const onAbort = () =>
        settle(() => {
          // The broker aborts the procedure too (a wait stops waiting), as when an HTTP
          // client closed its request.
          if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ cancel: id }));
          reject(signal!.reason);
        });
      const settle = (done: () => void) => {
        if (!this.pending.delete(id)) return;
        signal?.removeEventListener('abort', onAbort);
        this.activity();
        done();
      };
      this.pending.set(id, { resolve: (reply) => settle(() => resolve(reply)), reject: (err) => settle(() => reject(err)) });
      signal?.addEventListener('abort', onAbort, { once: true });
      this.activity();
      ws.send(JSON.stringify({ id, ...call }), (err) => {
        if (err) this.pending.get(id)?.reject(connectionLost(err));
      });
    });
  }

  /** Fails the calls in flight and closes the connection; later calls fail too. */
  close(): void {
    this.closed = true;
    this.drop(this.ws);
  }

  private open(): Promise<WebSocket> {
    if (this.ws !== null && this.ws.readyState === WebSocket.OPEN) return Promise.resolve(this.ws);
    this.opening ??= new Promise<WebSocket>((resolve, reject) => {
      const ws = new WebSocket(unixWebSocketUrl(this.socketPath, BROKER_CALL_PATH), { perMessageDeflate: false });
      let lastError: unknown;
      ws.once('upgrade', (res) => {
        this.socket = res.socket as Socket;
      });
      ws.once('open', () => {
        this.opening = null;
        this.ws = ws;
        resolve(ws);
        this.activity();
      });
      ws.on('error', (err) => {
        lastError = err;
        if (this.opening !== null && this.ws !== ws) {
          this.opening = null;
          reject(err);
        }
      });
      ws.on('message', (data) => this.receive(String(data)));
      ws.on('close', () => this.drop(ws, lastError));
    });
    return this.opening;
  }

  private receive(text: string): void {
    let reply: BrokerCallReply;
    try {
      reply = JSON.parse(text) as BrokerCallReply;
    } catch {
      return;
    }
    // Errors are replies too: the link turns them into TRPCClientErrors.
    if (typeof reply.id === 'number') this.pending.get(reply.id)?.resolve(reply);
  }

  private drop(ws: WebSocket | null, cause?: unknown): void {
    if (ws === null) return;
    if (this.ws === ws) {
      this.ws = null;
      this.socket = null;
    }
    if (ws.readyState === WebSocket.OPEN || ws.readyState === WebSocket.CONNECTING) ws.terminate();
    for (const p of [...this.pending.values()]) p.reject(connectionLost(cause));
    if (this.idleTimer !== null) clearTimeout(this.idleTimer);
    this.idleTimer = null;
  }

  /** Keeps the process alive only while calls are in flight, and closes the connection
   * once it has been idle for `idleMs`. */
  private activity(): void {
    if (this.idleTimer !== null) clearTimeout(this.idleTimer);
    this.idleTimer = null;
    if (this.pending.size > 0) {
      this.socket?.ref();
      return;
    }
    this.socket?.unref();
    const ws = this.ws;
    if (ws === null) return;
    this.idleTimer = setTimeout(() => {
      if (this.pending.size === 0 && this.ws === ws) {
        this.ws = null;
        this.socket = null;
        ws.close(1000);
      }
    }, this.idleMs);
    this.idleTimer.unref();
  }
}

/** The link: queries and mutations only (subscriptions go over tRPC's wsLink, live.ts). */
export function callLink<TRouter extends AnyRouter>(options: CallLinkOptions): { link: TRPCLink<TRouter>; connection: BrokerCallConnection } {
  const connection = options.connection ?? new BrokerCallConnection(options.socketPath, options.idleMs);
  const link: TRPCLink<TRouter> = () => ({ op }) =>
    observable((observer) => {
      if (op.type === 'subscription') {
        observer.error(new TRPCClientError('subscriptions need the live client (createBrokerLiveClient)'));
        return;
      }
      const headers = options.headers();
      connection.call({ type: op.type, path: op.path, input: op.input, headers }, op.signal ?? undefined).then(
        (reply) => {
          if ('error' in reply) {
            observer.error(TRPCClientError.from({ error: reply.error } as never));
            return;
          }
          // No observer.complete() after the one value: the client's promise has already
          // taken it and unsubscribed, and a complete() only makes tRPC abort its private
          // AbortController, which builds a DOMException (with a stack trace) per call:
          // about 0.05 ms, a third of an empty broker call (measured: p50 0.15 -> 0.10 ms).
          // Our clients only ever await calls (queries and mutations), never subscribe.
          observer.next({ result: { type: 'data', data: reply.result.data as never }, context: {} });
        },
        (err: unknown) => observer.error(TRPCClientError.from(err instanceof Error ? err : new Error(String(err)))),
      );
    });
  return { link, connection };
}
