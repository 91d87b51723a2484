/**
 * MCP Streamable HTTP, server side, JSON-response mode only, on node:http directly.
 *
 * Why it exists: speed. The SDK's StreamableHTTPServerTransport wraps its web-standard
 * transport in @hono/node-server, which turns every Node request into a web Request and
 * every answer into a web Response read back through a ReadableStream. Measured on Node 20
 * (one 20 KB terminal_tail answer, SDK client over fetch, server in another process) that
 * conversion cost about 0.45 ms of a 1.4 ms round trip; this module writes the answer
 * with one res.end. Both MCP edges (gateway, observer) answer every request once with a
 * JSON body and offer no SSE stream, so this is all they need.
 *
 * What it keeps from the SDK transport (same status codes and JSON-RPC error codes, so a
 * client sees no difference): POST needs Accept listing application/json and
 * text/event-stream (406) and a JSON Content-Type (415); at most MAX_BATCH_SIZE messages
 * (400); every message must be JSON-RPC (400, -32700); with a session id generator the id
 * is issued on initialize and required (400) and matched (404) afterwards; an unsupported
 * Mcp-Protocol-Version header is 400; a POST of notifications or responses only is 202;
 * DELETE ends a stateful session (200); a closed transport answers 404. Differences, each
 * on purpose: GET is 405 (no SSE stream); a batch is answered with an array even when it
 * held one request (JSON-RPC 2.0); a request id already waiting for its answer is refused
 * (400) instead of silently stealing the earlier request's answer; the echo of a bad
 * protocol version is capped; a request still waiting when the transport closes is
 * answered 404 instead of hanging; server-initiated messages are dropped, as the SDK
 * does in JSON mode (there is no stream to carry them).
 *
 * The caller reads the body (with its own size limit) and passes it parsed.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { MAX_BATCH_SIZE } from '@modelcontextprotocol/sdk/server/requestBody.js';
import { isJsonContentType } from '@modelcontextprotocol/sdk/shared/mediaType.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  isInitializeRequest,
  isJSONRPCRequest,
  JSONRPCMessageSchema,
  SUPPORTED_PROTOCOL_VERSIONS,
  type JSONRPCMessage,
  type MessageExtraInfo,
  type RequestId,
} from '@modelcontextprotocol/sdk/types.js';

export interface JsonHttpTransportOptions {
  /** Stateful when set: called once, on initialize, for the session's id. Undefined:
   * stateless, one transport per request. */
  sessionIdGenerator?: (() => string) | undefined;
  /** Called with the new id before the initialize request is handled. */
  onsessioninitialized?: (sessionId: string) => void | Promise<void>;
  /** Called when a DELETE ends the session, before the transport closes. */
  onsessionclosed?: (sessionId: string) => void | Promise<void>;
  /** Added to every answer (e.g. Cache-Control: no-store). */
  responseHeaders?: Readonly<Record<string, string>>;
}

/** The longest part of a refused Mcp-Protocol-Version value echoed back. */
const ECHO_MAX = 64;

/** One POST waiting for the answers to its requests. */
interface WaitingPost {
  readonly res: ServerResponse;
  readonly ids: readonly RequestId[];
  readonly answers: Map<RequestId, JSONRPCMessage>;
  /** The body was an array: answered with an array. */
  readonly batch: boolean;
  done: boolean;
}

const headerOf = (v: string | string[] | undefined): string | undefined => (Array.isArray(v) ? v.join(', ') : v);

export class JsonHttpServerTransport implements Transport {
  sessionId?: string;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;

  private readonly options: JsonHttpTransportOptions;
  /** Request id -> the POST that waits for its answer. */
  private readonly waiting = new Map<RequestId, WaitingPost>();
  private started = false;
  private initialized = false;
  private handledOne = false;
  private closed = false;

  constructor(options: JsonHttpTransportOptions = {}) {
    this.options = options;
  }

  async start(): Promise<void> {
    if (this.started) throw new Error('Transport already started');
    this.started = true;
  }

  /** Serves one HTTP request; resolves once it is answered (or its client went away). */
  async handleRequest(req: IncomingMessage, res: ServerResponse, body?: unknown): Promise<void> {
    if (this.closed) return this.refuse(res, 404, -32001, 'Session not found');
    // A stateless transport belongs to one request: the SDK refuses reuse the same way.
    if (this.options.sessionIdGenerator === undefined && this.handledOne) {
      throw new Error('Stateless transport cannot be reused across requests. Create a new transport per request.');
    }
    this.handledOne = true;
    switch (req.method) {
      case 'POST':
        return this.handlePost(req, res, body);
      case 'DELETE':
        return this.handleDelete(req, res);
      default:
        // GET included: there is no standalone SSE stream in JSON-response mode.
        return this.refuse(res, 405, -32000, 'Method not allowed.', { Allow: 'POST, DELETE' });
    }
  }

  async send(message: JSONRPCMessage): Promise<void> {
    // Only answers travel: server-initiated requests and notifications would need an SSE
    // stream (the SDK drops them the same way in JSON mode). Our own Protocol sends these
    // messages, so a shape check suffices.
    if (!('id' in message) || message.id === undefined || !('result' in message || 'error' in message)) return;
    const post = this.waiting.get(message.id);
    if (post === undefined) throw new Error(`No HTTP request is waiting for the answer to request ${String(message.id)}`);
    this.waiting.delete(message.id);
    post.answers.set(message.id, message);
    if (post.answers.size === post.ids.length) this.answer(post);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // A request still waiting would otherwise hang until its client gives up.
    for (const post of new Set(this.waiting.values())) {
      post.done = true;
      this.refuse(post.res, 404, -32001, 'Session not found: the session ended before this request was answered');
    }
    this.waiting.clear();
    this.onclose?.();
  }

  private async handlePost(req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
    // Accept is a list, so a substring check is the intended (and the SDK's) rule;
    // Content-Type is compared as a parsed media type.
    const accept = headerOf(req.headers.accept);
    if (!accept?.includes('application/json') || !accept.includes('text/event-stream')) {
      return this.refuse(res, 406, -32000, 'Not Acceptable: Client must accept both application/json and text/event-stream');
    }
    if (!isJsonContentType(headerOf(req.headers['content-type']))) {
      return this.refuse(res, 415, -32000, 'Unsupported Media Type: Content-Type must be application/json');
    }
    if (Array.isArray(body) && body.length > MAX_BATCH_SIZE) {
      return this.refuse(res, 400, -32600, `Invalid Request: Batch must not exceed ${MAX_BATCH_SIZE} messages`);
    }
    let messages: JSONRPCMessage[];
    try {
      messages = (Array.isArray(body) ? body : [body]).map((m) => JSONRPCMessageSchema.parse(m));
    } catch {
      return this.refuse(res, 400, -32700, 'Parse error: Invalid JSON-RPC message');
    }

    const initializing = messages.some((m) => 'method' in m && m.method === 'initialize' && isInitializeRequest(m));
    if (initializing) {
      if (this.initialized && this.sessionId !== undefined) return this.refuse(res, 400, -32600, 'Invalid Request: Server already initialized');
      if (messages.length > 1) return this.refuse(res, 400, -32600, 'Invalid Request: Only one initialization request is allowed');
      this.sessionId = this.options.sessionIdGenerator?.();
      this.initialized = true;
      if (this.sessionId !== undefined) await this.options.onsessioninitialized?.(this.sessionId);
    } else {
      const refused = this.checkSession(req, res) || this.checkProtocolVersion(req, res);
      if (refused) return;
    }
    // close() may have run while onsessioninitialized was awaited.
    if (this.closed) return this.refuse(res, 404, -32001, 'Session not found');

    const extra: MessageExtraInfo = { requestInfo: { headers: req.headers } };
    const requests = messages.filter(isJSONRPCRequest);
    if (requests.length === 0) {
      for (const m of messages) this.onmessage?.(m, extra);
      res.writeHead(202, { ...this.options.responseHeaders, ...this.sessionHeader() }).end();
      return;
    }
    const ids = requests.map((r) => r.id);
    if (new Set(ids).size !== ids.length || ids.some((id) => this.waiting.has(id))) {
      return this.refuse(res, 400, -32600, 'Invalid Request: a request id is already waiting for its answer; use a fresh id per request');
    }
    const post: WaitingPost = { res, ids, answers: new Map(), batch: Array.isArray(body), done: false };
    for (const id of ids) this.waiting.set(id, post);
    const finished = new Promise<void>((resolve) => {
      res.once('close', () => {
        // The client went away first: its answers have nowhere to go.
        if (!post.done) for (const id of ids) if (this.waiting.get(id) === post) this.waiting.delete(id);
        post.done = true;
        resolve();
      });
    });
    for (const m of messages) this.onmessage?.(m, extra);
    return finished;
  }

  private async handleDelete(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (this.checkSession(req, res) || this.checkProtocolVersion(req, res)) return;
    try {
      if (this.sessionId !== undefined) await this.options.onsessionclosed?.(this.sessionId);
      res.writeHead(200, { ...this.options.responseHeaders }).end();
    } finally {
      await this.close();
    }
  }

  /** Stateful only: the request must name this session. True when refused. */
  private checkSession(req: IncomingMessage, res: ServerResponse): boolean {
    if (this.options.sessionIdGenerator === undefined) return false;
    if (!this.initialized) {
      this.refuse(res, 400, -32000, 'Bad Request: Server not initialized');
      return true;
    }
    const id = headerOf(req.headers['mcp-session-id']);
    if (!id) {
      this.refuse(res, 400, -32000, 'Bad Request: Mcp-Session-Id header is required');
      return true;
    }
    if (id !== this.sessionId) {
      this.refuse(res, 404, -32001, 'Session not found');
      return true;
    }
    return false;
  }

  /** A request without the header is served under the version negotiated at initialize. */
  private checkProtocolVersion(req: IncomingMessage, res: ServerResponse): boolean {
    const version = headerOf(req.headers['mcp-protocol-version']);
    if (version === undefined || SUPPORTED_PROTOCOL_VERSIONS.includes(version)) return false;
    const shown = version.length > ECHO_MAX ? `${version.slice(0, ECHO_MAX)}...` : version;
    this.refuse(res, 400, -32000, `Bad Request: Unsupported protocol version: ${shown} (supported versions: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')})`);
    return true;
  }

  private answer(post: WaitingPost): void {
    if (post.done) return;
    post.done = true;
    const answers = post.ids.map((id) => post.answers.get(id));
    const text = JSON.stringify(post.batch ? answers : answers[0]);
    if (post.res.destroyed || post.res.headersSent) return;
    post.res
      .writeHead(200, {
        ...this.options.responseHeaders,
        'Content-Type': 'application/json',
        'Content-Length': String(Buffer.byteLength(text)),
        ...this.sessionHeader(),
      })
      .end(text);
  }

  private sessionHeader(): Record<string, string> {
    return this.sessionId !== undefined ? { 'mcp-session-id': this.sessionId } : {};
  }

  /** A transport-level refusal: a JSON-RPC error without an id, as the SDK answers. */
  private refuse(res: ServerResponse, status: number, code: number, message: string, headers: Record<string, string> = {}): void {
    this.onerror?.(new Error(message));
    if (res.destroyed || res.headersSent) return;
    const text = JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null });
    res
      .writeHead(status, {
        ...this.options.responseHeaders,
        'Content-Type': 'application/json',
        'Content-Length': String(Buffer.byteLength(text)),
        ...headers,
      })
      .end(text);
  }
}
