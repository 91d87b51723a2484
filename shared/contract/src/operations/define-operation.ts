/**
 * One broker operation, stated once (issue 49; OpenSSH's monitor.c is the model: every
 * privileged request in one table). A row says which sockets serve it, what it does, its
 * schemas, and where it surfaces: the MCP tool that calls it (with its toolset) and the
 * HTTP route of the scripts' API. From the table (operations/table.ts) come the gateway's
 * toolsets, the tools that need the input scope, the docs/tools.md index and the
 * gateway's /api/v1 routes and OpenAPI document. The procedure's body stays in the broker
 * (services/broker/src/rpc/procedures/<capability>.ts); a tool's description and text
 * rendering stay with the tool (what a model reads is pinned byte for byte by the
 * catalogue budget test).
 */
import type { z } from 'zod';
import type { SocketRole } from '../paths.js';
import type { GatewayToolset } from '../toolsets.js';

export type OperationKind = 'query' | 'mutation' | 'subscription';

/**
 * What the operation does, for the broker's one authorization decision
 * (services/broker/src/policy/authority.ts): `read`, `write`, `input`, `lifecycle` need
 * the caller's principal to allow that effect; `delivery` types into a pane (judged by the
 * input attempt at delivery); `sign-in` is part of authenticating.
 */
export type OperationEffect = 'read' | 'write' | 'input' | 'lifecycle' | 'delivery' | 'sign-in';

export type HttpMethod = 'GET' | 'POST';

export interface OperationTool {
  /** Public API (hosted clients cache tool lists): never renamed. */
  readonly name: string;
  /** The gateway toolset that lists it; absent for an observer-only tool. */
  readonly toolset?: GatewayToolset;
}

export interface OperationRoute {
  /** GET for reads whose arguments fit a query string; POST for the rest. */
  readonly method: HttpMethod;
  /** Below /api/v1; `{arg}` segments fill the argument of that name. */
  readonly route: `/${string}`;
}

export interface Operation {
  /** The tRPC path on every socket in `roles`. */
  readonly path: `${string}.${string}`;
  /** The sockets that serve this very procedure at `path`. */
  readonly roles: readonly SocketRole[];
  readonly kind: OperationKind;
  readonly effect: OperationEffect;
  /** The arguments as the broker checks them (absent: none, or not a client's API). */
  readonly input?: z.ZodType;
  /** The answer's shape (absent where no client reads its fields). */
  readonly output?: z.ZodType;
  readonly tool?: OperationTool;
  /** Only operations with a gateway tool are on the scripts' API. */
  readonly http?: OperationRoute;
}

/** A row of the table, checked against `Operation` but keeping its literal types. */
export function defineOperation<const O extends Operation>(operation: O): O {
  return operation;
}

/** The arguments a route's path fills, in order (`/sessions/{session}/tail` → session). */
export function routeParams(route: string): string[] {
  return [...route.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
}
