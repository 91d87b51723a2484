/**
 * Typed tRPC client for the broker over a Unix socket (queries and mutations over the
 * call link, call-link.ts). The socket picked IS the role;
 * the types come from the broker's router *types* only — no broker runtime code is
 * imported here.
 */
import { createTRPCClient, type TRPCClient } from '@trpc/client';
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
import { AsyncLocalStorage } from 'node:async_hooks';
import { homedir } from 'node:os';
import { callLink } from './call-link.js';

export interface RouterForRole {
  gateway: GatewayRouter;
  observer: ObserverRouter;
  web: WebRouter;
  notifier: NotifierRouter;
}

export type BrokerClient<R extends SocketRole> = TRPCClient<RouterForRole[R]>;

export interface BrokerClientOptions<R extends SocketRole> {
  role: R;
  /** Defaults to `<socket dir>/<role>.sock` from the environment. */
  socketPath?: string;
  env?: NodeJS.ProcessEnv;
  /** Recorded by the broker in its audit log on observer.sock and web.sock; never used for
   * access decisions, and ignored on gateway.sock (identity comes from authentication). */
  actor?: () => string | undefined;
  /** gateway.sock: how this process authenticated its caller when not by OAuth (see
   * BROKER_HEADERS.principal), e.g. `stdio:<unix user>` for the stdio gateway. A
   * `withBrokerPrincipal` scope wins. */
  principal?: () => string | undefined;
  /** web.sock: the signed-in operator's session token for the current call. The broker
   * validates it and acts as that user; calls that change something refuse without it. */
  operatorSession?: () => string | undefined;
}

/** The actor of the broker calls made inside `withBrokerActor` (see there). */
const actorScope = new AsyncLocalStorage<string>();

/**
 * Runs `fn` with every broker call it makes naming `actor` (e.g. the MCP client's name or
 * the dashboard user) in the actor header, unless the client was created with its own
 * `actor` option. The broker records it in the audit log; it never grants anything.
 */
export function withBrokerActor<T>(actor: string | undefined, fn: () => T): T {
  return actor ? actorScope.run(actor, fn) : fn();
}

/** The OAuth access token of the calls made inside `withBrokerCredential`. */
const credentialScope = new AsyncLocalStorage<string>();

/**
 * Runs `fn` with every broker call it makes naming the OAuth access token the request
 * came with (CREDENTIAL_HEADER). The broker verifies it itself and takes the actor and
 * the scopes from it: unlike the actor header, this is checked, not just recorded.
 */
export function withBrokerCredential<T>(accessToken: string | undefined, fn: () => T): T {
  return accessToken ? credentialScope.run(accessToken, fn) : fn();
}

/** The gateway's own principal for the calls made inside `withBrokerPrincipal`. */
const principalScope = new AsyncLocalStorage<string>();

/**
 * Runs `fn` with every broker call it makes naming how the gateway authenticated the
 * request it serves (`token` or `anonymous`; see BROKER_HEADERS.principal). The broker
 * derives the caller's identity from it and from the OAuth credential, never from a name
 * the client gave itself.
 */
export function withBrokerPrincipal<T>(principal: string | undefined, fn: () => T): T {
  return principal ? principalScope.run(principal, fn) : fn();
}

export function defaultSocketPath(role: SocketRole, env: NodeJS.ProcessEnv = process.env): string {
  return socketPathFor(resolvePaths(env, homedir()).socketDir, role);
}

/** The headers of one broker call: the actor (the client's option, else the
 * `withBrokerActor` scope), on web.sock the operator's session token, and on gateway.sock
 * the OAuth credential or the gateway's principal. */
export function brokerCallHeaders(options: Pick<BrokerClientOptions<SocketRole>, 'actor' | 'operatorSession' | 'principal'>): Record<string, string> {
  const headers: Record<string, string> = {};
  const actor = options.actor?.() ?? actorScope.getStore();
  if (actor) headers[BROKER_HEADERS.actor] = actor;
  const token = options.operatorSession?.();
  if (token) headers[BROKER_HEADERS.operatorSession] = token;
  const credential = credentialScope.getStore();
  if (credential) headers[BROKER_HEADERS.credential] = credential;
  const principal = principalScope.getStore() ?? options.principal?.();
  if (principal) headers[BROKER_HEADERS.principal] = principal;
  return headers;
}

export function createBrokerClient<R extends SocketRole>(options: BrokerClientOptions<R>): BrokerClient<R> {
  const socketPath = options.socketPath ?? defaultSocketPath(options.role, options.env);
  const { link } = callLink<RouterForRole[R]>({ socketPath, headers: () => brokerCallHeaders(options) });
  return createTRPCClient<RouterForRole[R]>({ links: [link] }) as BrokerClient<R>;
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
