/**
 * The scripts' API routes (issue 49), compiled once from the operation table's `http`
 * rows (shared/contract operations/table.ts): `GET /api/v1/sessions/{session}/tail` is
 * the row of terminal_tail. A literal segment wins over a `{param}` one, so
 * `/notes/search` is never read as the note with id "search".
 */
import { GATEWAY_TOOL_OPERATIONS, type GatewayToolOperation } from '@terminal-mcp/contract';

export const API_PREFIX = '/api/v1';

type Segment = { literal: string } | { param: string };

interface CompiledRoute {
  op: GatewayToolOperation;
  segments: Segment[];
  /** Literal segments count first when two routes match. */
  literals: number;
}

const COMPILED: readonly CompiledRoute[] = GATEWAY_TOOL_OPERATIONS.map((op) => {
  const segments = op.http.route
    .split('/')
    .slice(1)
    .map((part): Segment => (/^\{\w+\}$/.test(part) ? { param: part.slice(1, -1) } : { literal: part }));
  return { op, segments, literals: segments.filter((s) => 'literal' in s).length };
}).sort((a, b) => b.literals - a.literals);

export type RouteMatch =
  | { kind: 'found'; op: GatewayToolOperation; params: Record<string, string> }
  | { kind: 'wrong-method'; allow: string[] }
  | { kind: 'none' };

function matchSegments(route: CompiledRoute, parts: readonly string[]): Record<string, string> | undefined {
  if (route.segments.length !== parts.length) return undefined;
  const params: Record<string, string> = {};
  for (const [i, segment] of route.segments.entries()) {
    const part = parts[i]!;
    if ('literal' in segment) {
      if (segment.literal !== part) return undefined;
    } else {
      if (part.length === 0) return undefined;
      params[segment.param] = part;
    }
  }
  return params;
}

/** The route `path` (below API_PREFIX, without the query) names for `method`. Path
 * segments are percent-decoded; one that does not decode matches nothing. */
export function matchApiRoute(method: string, path: string): RouteMatch {
  let parts: string[];
  try {
    parts = path.split('/').slice(1).map(decodeURIComponent);
  } catch {
    return { kind: 'none' };
  }
  const wanted = method === 'HEAD' ? 'GET' : method;
  const allow = new Set<string>();
  for (const route of COMPILED) {
    const params = matchSegments(route, parts);
    if (params === undefined) continue;
    if (route.op.http.method === wanted) return { kind: 'found', op: route.op, params };
    allow.add(route.op.http.method);
  }
  return allow.size > 0 ? { kind: 'wrong-method', allow: [...allow] } : { kind: 'none' };
}
