/**
 * A request's arguments for its operation's tool: `{param}` path segments, then the query
 * string (GET) or a JSON object body (POST). Strings from a path or a query are read as
 * the type the operation's input schema gives that argument (`lines=50` is a number,
 * `strip_ansi=true` a boolean, `states=RUNNING&states=IDLE` an array); anything else stays
 * as sent, and the tool's own argument check (the MCP one) refuses it with
 * INVALID_ARGUMENT, so the API accepts exactly what the tool accepts.
 */
import type { BrokerFailure } from '@terminal-mcp/broker-client';
import { ERROR_SPECS, GATEWAY_TOOL_OPERATIONS, type GatewayToolOperation } from '@terminal-mcp/contract';
import { z } from 'zod';

type JsonType = 'string' | 'number' | 'integer' | 'boolean' | 'array' | 'object' | 'other';

interface ArgumentTypes {
  of(name: string): { type: JsonType; items: JsonType } | undefined;
}

function typeOf(node: unknown): JsonType {
  const n = node as { type?: unknown; anyOf?: unknown[]; enum?: unknown[]; const?: unknown } | undefined;
  if (!n) return 'other';
  if (typeof n.type === 'string') return (['string', 'number', 'integer', 'boolean', 'array', 'object'].includes(n.type) ? n.type : 'other') as JsonType;
  if (Array.isArray(n.anyOf)) return typeOf(n.anyOf.find((x) => (x as { type?: unknown }).type !== 'null'));
  if (Array.isArray(n.enum) && n.enum.every((v) => typeof v === 'string')) return 'string';
  return 'other';
}

/** The JSON schema of the operation's arguments (also what the OpenAPI document shows). */
export function inputJsonSchema(op: GatewayToolOperation): { properties?: Record<string, unknown>; required?: string[] } {
  return z.toJSONSchema(op.input!, { io: 'input', unrepresentable: 'any' }) as { properties?: Record<string, unknown>; required?: string[] };
}

function argumentTypesOf(op: GatewayToolOperation): ArgumentTypes {
  const properties = inputJsonSchema(op).properties ?? {};
  const table: ReadonlyMap<string, { type: JsonType; items: JsonType }> = new Map(Object.entries(properties).map(([name, node]) => [name, { type: typeOf(node), items: typeOf((node as { items?: unknown }).items) }]));
  return { of: (name) => table.get(name) };
}

/** Each route's argument types, read from its schema once at load (a constant table). */
const ARGUMENT_TYPES: ReadonlyMap<GatewayToolOperation, ArgumentTypes> = new Map(GATEWAY_TOOL_OPERATIONS.map((op) => [op, argumentTypesOf(op)]));

function fromText(text: string, type: JsonType): unknown {
  switch (type) {
    case 'number':
    case 'integer':
      return /^-?\d+(\.\d+)?$/.test(text) ? Number(text) : text;
    case 'boolean':
      return text === 'true' || text === '1' ? true : text === 'false' || text === '0' ? false : text;
    case 'object':
      try {
        return JSON.parse(text) as unknown;
      } catch {
        return text;
      }
    default:
      return text;
  }
}

export type ArgumentsResult = { ok: true; args: Record<string, unknown> } | { ok: false; failure: BrokerFailure };

const refused = (message: string): ArgumentsResult => ({ ok: false, failure: { code: 'INVALID_ARGUMENT', message, hint: ERROR_SPECS.INVALID_ARGUMENT.hint } });

/** Sets an own property even for a name such as `__proto__` (a hostile body's key): the
 * tool's argument check then refuses it as an unknown argument. */
function put(args: Record<string, unknown>, name: string, value: unknown): void {
  Object.defineProperty(args, name, { value, enumerable: true, writable: true, configurable: true });
}

/** `body` is the parsed JSON of a POST (undefined for GET or an empty body). */
export function requestArguments(op: GatewayToolOperation, params: Record<string, string>, query: URLSearchParams, body: unknown): ArgumentsResult {
  const types = ARGUMENT_TYPES.get(op) ?? argumentTypesOf(op);
  const args: Record<string, unknown> = {};
  if (op.http.method === 'GET') {
    for (const name of new Set(query.keys())) {
      const t = types.of(name);
      put(args, name, t?.type === 'array' ? query.getAll(name).map((v) => fromText(v, t.items)) : fromText(query.get(name)!, t?.type ?? 'string'));
    }
  } else {
    if ([...query.keys()].length > 0) return refused('a POST takes its arguments in a JSON body, not in the query string');
    if (body !== undefined) {
      if (typeof body !== 'object' || body === null || Array.isArray(body)) return refused('the body must be a JSON object of the arguments');
      for (const [name, value] of Object.entries(body)) put(args, name, value);
    }
  }
  for (const [name, text] of Object.entries(params)) {
    const value = fromText(text, types.of(name)?.type ?? 'string');
    if (Object.hasOwn(args, name) && args[name] !== value) return refused(`${name} is given by the path; leave it out of the ${op.http.method === 'GET' ? 'query' : 'body'} or give the same value`);
    put(args, name, value);
  }
  return { ok: true, args };
}
