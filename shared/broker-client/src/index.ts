/**
 * Typed tRPC client for the broker over a Unix socket (queries and mutations over the
 * call link, call-link.ts). The socket picked IS the role;
 * the types come from the broker's router *types* only — no broker runtime code is
 * imported here.
 */
import { createTRPCClient, type TRPCClient, type TRPCLink } from '@trpc/client';
import {
  AppError,
  BROKER_HEADERS,
  ERROR_SPECS,
  readAppErrorData,
  resolvePaths,
  socketPathFor,
  type ErrorCode,
  type SocketRole,
} from '@terminal-mcp/contract';
import type { GatewayRouter, NotifierRouter, ObserverRouter, WebRouter } from '@terminal-mcp/broker/router-types';
import { homedir } from 'node:os';
import { BrokerCallConnection, callLink } from './call-link.js';

export interface RouterForRole {
  gateway: GatewayRouter;
  observer: ObserverRouter;
  web: WebRouter;
  notifier: NotifierRouter;
}

/** Who a broker call is made for: the identity headers every call of a bound client
 * carries (see BROKER_HEADERS). The broker checks the credential and the operator session
 * itself, derives the caller from the principal, and only records the actor. */
export interface BrokerCaller {
  /** Recorded in the audit log on observer.sock and web.sock; never used for access
   * decisions, and ignored on gateway.sock (identity comes from authentication). */
  actor?: string;
  /** gateway.sock: the OAuth access token the request came with. */
  credential?: string;
  /** gateway.sock: how the gateway let the request in when not by OAuth (`token`,
   * `anonymous`, `stdio:<unix user>`). */
  principal?: string;
  /** web.sock: the signed-in operator's session token. */
  operatorSession?: string;
}

/** The typed client, plus `as(caller)`: a client on the same connection whose every call
 * carries `caller`'s identity headers (over this client's own). Identity is a value the
 * request's code holds, not an ambient scope a stray promise can leave or enter. */
export type BrokerClient<R extends SocketRole> = TRPCClient<RouterForRole[R]> & {
  /** `caller` may be a function, read at each call: a live MCP session's caller whose
   * OAuth credential is refreshed between requests. */
  as(caller: BrokerCaller | (() => BrokerCaller)): BrokerClient<R>;
};

export interface BrokerClientOptions<R extends SocketRole> {
  role: R;
  /** Defaults to `<socket dir>/<role>.sock` from the environment. */
  socketPath?: string;
  env?: NodeJS.ProcessEnv;
  /** Recorded by the broker in its audit log on observer.sock and web.sock; never used for
   * access decisions, and ignored on gateway.sock (identity comes from authentication). */
  actor?: () => string | undefined;
  /** gateway.sock: how this process authenticated its caller when not by OAuth (see
   * BROKER_HEADERS.principal), e.g. `stdio:<unix user>` for the stdio gateway. A bound
   * caller's principal or credential wins. */
  principal?: () => string | undefined;
  /** web.sock: the signed-in operator's session token for the current call. The broker
   * validates it and acts as that user; calls that change something refuse without it. */
  operatorSession?: () => string | undefined;
}

type HeaderSources = Pick<BrokerClientOptions<SocketRole>, 'actor' | 'operatorSession' | 'principal'>;

export function defaultSocketPath(role: SocketRole, env: NodeJS.ProcessEnv = process.env): string {
  return socketPathFor(resolvePaths(env, homedir()).socketDir, role);
}

/** The headers of one broker call: the bound caller's, else the client's options. */
export function brokerCallHeaders(options: HeaderSources, caller: BrokerCaller = {}): Record<string, string> {
  const headers: Record<string, string> = {};
  const actor = caller.actor ?? options.actor?.();
  if (actor) headers[BROKER_HEADERS.actor] = actor;
  const token = caller.operatorSession ?? options.operatorSession?.();
  if (token) headers[BROKER_HEADERS.operatorSession] = token;
  if (caller.credential) headers[BROKER_HEADERS.credential] = caller.credential;
  const principal = caller.principal ?? options.principal?.();
  if (principal) headers[BROKER_HEADERS.principal] = principal;
  return headers;
}

/** A typed client over `links(headers)` whose `as(caller)` builds another on the same
 * links with the caller's headers merged over these. */
export function bindableClient<R extends SocketRole>(
  links: (headers: () => Record<string, string>) => TRPCLink<RouterForRole[R]>[],
  options: HeaderSources,
  caller: () => BrokerCaller = () => ({}),
): BrokerClient<R> {
  const client = createTRPCClient<RouterForRole[R]>({ links: links(() => brokerCallHeaders(options, caller())) } as never);
  const as = (next: BrokerCaller | (() => BrokerCaller)) =>
    bindableClient<R>(links, options, () => ({ ...caller(), ...(typeof next === 'function' ? next() : next) }));
  // tRPC's client is a proxy that turns every property into a procedure path; `as` is
  // answered here instead (no router has a procedure or namespace named `as`).
  return new Proxy(client, { get: (target, key, receiver) => (key === 'as' ? as : Reflect.get(target, key, receiver)) }) as BrokerClient<R>;
}

export function createBrokerClient<R extends SocketRole>(options: BrokerClientOptions<R>): BrokerClient<R> {
  const socketPath = options.socketPath ?? defaultSocketPath(options.role, options.env);
  // One connection for the client and every client `as` binds from it.
  const connection = new BrokerCallConnection(socketPath);
  return bindableClient<R>((headers) => [callLink<RouterForRole[R]>({ socketPath, headers, connection }).link], options);
}

/** A caller-safe description of a broker call failure. "Broker said no" keeps the
 * broker's code; "could not reach the broker" is BROKER_UNAVAILABLE. */
export interface BrokerFailure {
  code: ErrorCode;
  message: string;
  hint: string;
  correlationId?: string;
}

function isConnectionFailure(err: unknown): boolean {
  let cur: unknown = err;
  for (let depth = 0; depth < 6 && cur; depth++) {
    const code = (cur as { code?: unknown }).code;
    if (typeof code === 'string' && ['ECONNREFUSED', 'ENOENT', 'ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'EACCES'].includes(code)) {
      return true;
    }
    if ((cur as Error).message === 'fetch failed') return true;
    cur = (cur as { cause?: unknown }).cause;
  }
  return false;
}

/** The call reached the broker and its connection broke before the answer (reset, or the
 * socket closed mid-response), as opposed to one that never connected (refused, no
 * socket): the broker may have acted on it. */
export function wasCutAfterSend(err: unknown): boolean {
  if (readAppErrorData(err)) return false;
  let cur: unknown = err;
  for (let depth = 0; depth < 6 && cur; depth++) {
    const code = (cur as { code?: unknown }).code;
    if (typeof code === 'string' && ['ECONNRESET', 'UND_ERR_SOCKET'].includes(code)) return true;
    cur = (cur as { cause?: unknown }).cause;
  }
  return false;
}

export function describeBrokerFailure(err: unknown): BrokerFailure {
  const app = readAppErrorData(err);
  if (app) {
    const message = err instanceof Error ? err.message : String(app.code);
    return { ...app, message };
  }
  if (isConnectionFailure(err)) {
    return { code: 'BROKER_UNAVAILABLE', message: 'could not reach the broker', hint: ERROR_SPECS.BROKER_UNAVAILABLE.hint };
  }
  return { code: 'INTERNAL', message: 'unexpected error talking to the broker', hint: ERROR_SPECS.INTERNAL.hint };
}

export function toAppError(err: unknown): AppError {
  const f = describeBrokerFailure(err);
  return new AppError(f.code, f.message, f.hint);
}

/** Subscriptions too: tRPC's WebSocket protocol on the role's socket, the call link for the rest (live.ts). */
export { unixWebSocketUrl } from './call-link.js';
export { createBrokerLiveClient, type BrokerLiveClient, type BrokerLiveClientOptions } from './live.js';
