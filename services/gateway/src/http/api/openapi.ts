/**
 * The OpenAPI 3.1 document of the scripts' API, generated from the operation table and
 * the same zod schemas the MCP tools check (zod 4's JSON-schema export; 3.1 speaks JSON
 * Schema 2020-12). Every gateway tool's route is in it, with its toolset as a tag and the
 * input scope it needs; which of them a caller is served is the caller's toolsets, as for
 * tools/list. 
 */
import { ERROR_CODES, GATEWAY_TOOL_OPERATIONS, INPUT_TOOL_NAMES, routeParams, type GatewayToolOperation } from '@terminal-mcp/contract';
import { z } from 'zod';
import { GATEWAY_VERSION } from '../../version.js';
import { GATEWAY_TOOLS } from '../../tools/index.js';
import { inputJsonSchema } from './arguments.js';
import { API_PREFIX } from './routes.js';

type Json = Record<string, unknown>;

const ERROR_BODY: Json = {
  type: 'object',
  required: ['code', 'message', 'hint'],
  properties: {
    code: { type: 'string', enum: [...ERROR_CODES] },
    message: { type: 'string' },
    hint: { type: 'string', description: 'how to recover' },
    correlation_id: { type: 'string', description: 'for INTERNAL: quote it to the operator' },
  },
};

function operationObject(op: GatewayToolOperation): Json {
  const tool = GATEWAY_TOOLS.find((t) => t.name === op.tool.name);
  const input = inputJsonSchema(op);
  const properties = input.properties ?? {};
  const required = new Set(input.required ?? []);
  const inPath = routeParams(op.http.route);
  const parameters: Json[] = inPath.map((name) => ({ name, in: 'path', required: true, schema: properties[name] ?? { type: 'string' } }));
  let requestBody: Json | undefined;
  const rest = Object.keys(properties).filter((name) => !inPath.includes(name));
  if (op.http.method === 'GET') {
    for (const name of rest) parameters.push({ name, in: 'query', required: required.has(name), schema: properties[name], ...((properties[name] as Json).type === 'array' ? { style: 'form', explode: true } : {}) });
  } else {
    const body: Json = { type: 'object', additionalProperties: false, properties: Object.fromEntries(rest.map((n) => [n, properties[n]])) };
    const requiredRest = rest.filter((n) => required.has(n));
    if (requiredRest.length > 0) body.required = requiredRest;
    requestBody = { required: requiredRest.length > 0, content: { 'application/json': { schema: body } } };
  }
  const output = op.output ? (z.toJSONSchema(op.output, { io: 'output', unrepresentable: 'any' }) as Json) : { type: 'object' };
  delete output.$schema;
  return {
    operationId: op.tool.name,
    summary: tool?.title ?? op.tool.name,
    description: `${tool?.description ?? ''}\n\nThe MCP tool ${op.tool.name} (toolset ${op.tool.toolset})${INPUT_TOOL_NAMES.has(op.tool.name) ? '; needs the terminal:input scope with OAuth' : ''}.`.trim(),
    tags: [op.tool.toolset],
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(requestBody ? { requestBody } : {}),
    responses: {
      '200': { description: 'the answer (the tool\'s structured result)', content: { 'application/json': { schema: output } } },
      default: { description: 'a refusal or failure: the HTTP status of its code (docs/errors.md)', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
    },
  };
}

/** The document (the gateway builds it once, at the first request for it). */
export function buildOpenApiDocument(): Json {
  const paths: Record<string, Json> = {};
  for (const op of GATEWAY_TOOL_OPERATIONS) {
    const path = `${API_PREFIX}${op.http.route}`;
    (paths[path] ??= {})[op.http.method.toLowerCase()] = operationObject(op);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Terminal MCP gateway API for scripts',
      version: GATEWAY_VERSION,
      description: 'Every gateway MCP tool as a JSON route: same authentication, toolsets, scopes, audit and error codes as /mcp. Guide: /skills.md.',
    },
    security: [{ bearer: [] }],
    paths,
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'the gateway token (terminal-mcp client-config http) or an OAuth access token' } },
      schemas: { Error: ERROR_BODY },
    },
  };
}
