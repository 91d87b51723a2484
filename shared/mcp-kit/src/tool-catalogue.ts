/**
 * What `tools/list` says about each tool, built once per process from the zod schemas and
 * kept small: models pay for every byte of it in every conversation (budgets in
 * test/src/tool-catalogue.test.ts; the choices are documented in docs/tools.md).
 *
 * - Input schemas keep what a model needs to form a call: types, required names, enums,
 *   numeric ranges, array sizes, descriptions, and `additionalProperties: false` (the
 *   server refuses unknown names). String length caps and regex patterns are guard rails,
 *   not guidance: the edge and the broker enforce them and INVALID_ARGUMENT names the one
 *   that failed. zod's `$schema` and its ±2^53 integer bounds go.
 * - Output schemas are published only where a tool declares it (`publishOutputSchema`),
 *   and never close the object (`additionalProperties`), so a field added later does not
 *   break a client that cached the schema.
 */
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

type Json = Record<string, unknown>;

const DROPPED_EVERYWHERE: ReadonlySet<string> = new Set(['$schema']);
const DROPPED_FROM_STRINGS: ReadonlySet<string> = new Set(['minLength', 'maxLength', 'pattern']);

function compact(node: unknown, where: 'input' | 'output'): unknown {
  if (Array.isArray(node)) return node.map((n) => compact(n, where));
  if (typeof node !== 'object' || node === null) return node;
  const src = node as Json;
  const out: Json = {};
  for (const [key, value] of Object.entries(src)) {
    if (DROPPED_EVERYWHERE.has(key)) continue;
    if (src.type === 'string' && DROPPED_FROM_STRINGS.has(key)) continue;
    if (key === 'minimum' && value === Number.MIN_SAFE_INTEGER) continue;
    if (key === 'maximum' && value === Number.MAX_SAFE_INTEGER) continue;
    if (key === 'additionalProperties' && where === 'output') continue;
    out[key] = key === 'properties' ? Object.fromEntries(Object.entries(value as Json).map(([k, v]) => [k, compact(v, where)])) : compact(value, where);
  }
  return out;
}

/** The published JSON schema of a tool's arguments. */
export function publishedInputSchema(shape: z.ZodRawShape): Tool['inputSchema'] {
  const schema = compact(z.toJSONSchema(z.object(shape).strict(), { target: 'draft-7', io: 'input' }), 'input') as Json;
  return { ...schema, type: 'object' } as Tool['inputSchema'];
}

/** The published JSON schema of a tool's structured result. */
export function publishedOutputSchema(schema: z.ZodObject): NonNullable<Tool['outputSchema']> {
  const json = compact(z.toJSONSchema(schema, { target: 'draft-7', io: 'output' }), 'output') as Json;
  return { ...json, type: 'object' } as NonNullable<Tool['outputSchema']>;
}
