/**
 * The MCP server both services build and the wrapper every tool call goes through: a
 * time budget on the broker call and broker failures turned into `isError` results
 * (tool-errors.ts). The broker client is already bound to the server's caller
 * (`broker.as(caller)`). What differs per service — metrics, the audit record, log
 * levels — arrives as hooks.
 */
import { getUiCapability } from '@modelcontextprotocol/ext-apps/server';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult, type Implementation, type ServerNotification, type ServerRequest, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { BrokerClient, BrokerFailure } from '@terminal-mcp/broker-client';
import { closeMatches, type SocketRole } from '@terminal-mcp/contract';
import type { McpTool } from './define-tool.js';
import { callServedTool, refuseUnservedTool, type ToolCallObserver } from './tool-call.js';
import { publishedInputSchema, publishedOutputSchema } from './tool-catalogue.js';
import { toolErrorResult } from './tool-errors.js';

/** Generous for a read (they take milliseconds); it exists so a stuck broker or tmux
 * cannot hold a client's call open forever. */
export const DEFAULT_BROKER_TIMEOUT_MS = 30_000;

export type ToolCallExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/*
 * Built once per process and shared by every McpServer, because stateless HTTP builds a
 * server per request: the SDK's JSON-schema validator (an Ajv instance, the costliest part
 * of constructing a server; the SDK uses it only to check elicitation answers, and it
 * holds no per-connection state), and each tool's tools/list entry (tool-catalogue.ts).
 */
// eslint-disable-next-line terminal-mcp/no-module-state -- a memo of the SDK's Ajv validator, which holds no per-connection state: built once per process because stateless HTTP builds a server per request
let sharedSchemaValidator: AjvJsonSchemaValidator | undefined;
// eslint-disable-next-line terminal-mcp/no-module-state -- a memo of each tool's tools/list entry, a pure function of the tool object it is keyed by: unobservable
const listings = new WeakMap<McpTool<SocketRole>, Tool>();

/** The tool as tools/list shows it. `title` is top-level (MCP 2025-06-18), not repeated
 * in the annotations. */
export function listedTool(tool: McpTool<SocketRole>): Tool {
  let listed = listings.get(tool);
  if (listed === undefined) {
    listed = {
      name: tool.name,
      title: tool.title,
      description: tool.description,
      inputSchema: publishedInputSchema(tool.inputShape),
      ...(tool.publishOutputSchema ? { outputSchema: publishedOutputSchema(tool.outputSchema) } : {}),
      annotations: { ...tool.annotations },
      ...(tool.meta ? { _meta: { ...tool.meta } } : {}),
    };
    listings.set(tool, listed);
  }
  return listed;
}

/** A tools-only McpServer that reuses the process-wide JSON-schema validator. */
export function createToolServer(info: Implementation, instructions: string): McpServer {
  sharedSchemaValidator ??= new AjvJsonSchemaValidator();
  return new McpServer(info, { instructions, capabilities: { tools: {} }, jsonSchemaValidator: sharedSchemaValidator });
}

/** What a service observes of each tool call (metrics, its audit record, logs). */
export type ToolCallHooks = ToolCallObserver;

export interface RegisterToolsOptions<R extends SocketRole> {
  /** Bound to this server's caller: every call carries its identity headers. */
  broker: BrokerClient<R>;
  timeoutMs: number;
  hooks: ToolCallHooks;
  /** Tools this caller is not served (not listed), by name, with the refusal a call by a
   * name from a cached catalogue gets: never the tool's effect, never "no such tool". */
  hidden?: ReadonlyMap<string, BrokerFailure>;
  /** Tools served to this caller but not listed (the broker decides their calls). */
  unlisted?: readonly McpTool<R>[];
}

/** The tool names closest to a name that does not exist (the name is the caller's: only
 * ever compared, never echoed beyond a short quote). */
function unknownToolResult(name: string, tools: readonly McpTool<SocketRole>[]): CallToolResult {
  const suggestion = closeMatches(name, tools.map((t) => t.name), { max: 1 })[0];
  const shown = JSON.stringify(name.length > 64 ? `${name.slice(0, 61)}...` : name);
  return toolErrorResult({
    code: 'INVALID_ARGUMENT',
    message: `no tool is named ${shown}${suggestion ? `; did you mean ${suggestion}?` : ''}`,
    hint: 'Call tools/list for the tool names of this server.',
  });
}

/**
 * Serves `tools` on `server` through the low-level request handlers rather than
 * `McpServer.registerTool`, because the SDK's own path validates arguments with a zod
 * object that silently drops unknown keys and answers bad ones with an opaque protocol
 * message; here every refusal is our INVALID_ARGUMENT result with a hint
 * (tool-arguments.ts), and tools/list is built once per process (tool-catalogue.ts).
 */
export function registerTools<R extends SocketRole>(server: McpServer, tools: readonly McpTool<R>[], options: RegisterToolsOptions<R>): void {
  const { broker, timeoutMs, hooks, hidden, unlisted = [] } = options;
  const all = tools as readonly McpTool<SocketRole>[];
  const byName = new Map([...tools, ...unlisted].map((t) => [t.name, t]));
  const listing = { tools: all.map(listedTool) };

  server.server.setRequestHandler(ListToolsRequestSchema, () => listing);

  /** Whether this connection's client said at initialize that it shows MCP Apps views
   * (the `io.modelcontextprotocol/ui` extension). A tool that carries structured content
   * only for its view (terminal_tail, terminal_status: no published output schema) sends
   * it only then: to any other client it would be the same text a second time (issue 48:
   * a 200-line tail was 8.1 KB, its text twice). Hosts that do show views keep both lanes,
   * because they differ in which one their model reads (docs/tools.md). A request served
   * statelessly (the observer; an HTTP client without a session) comes with no initialize
   * on this server: what its client shows is unknown, and it gets both, as before. */
  const showsViews = () => {
    const capabilities = server.server.getClientCapabilities();
    return capabilities === undefined || getUiCapability(capabilities) !== undefined;
  };

  server.server.setRequestHandler(CallToolRequestSchema, async (request, extra: ToolCallExtra): Promise<CallToolResult> => {
    const tool = byName.get(request.params.name);
    const refusal = tool ? undefined : hidden?.get(request.params.name);
    if (refusal) return toolErrorResult(refuseUnservedTool(request.params.name, refusal, hooks).failure);
    // No hooks: the name is the caller's, and metrics label by tool name.
    if (!tool) return unknownToolResult(request.params.name, all);
    const progressToken = request.params._meta?.progressToken;
    const progress =
      progressToken === undefined
        ? undefined
        : (value: number, message: string) => {
            void extra.sendNotification({ method: 'notifications/progress', params: { progressToken, progress: value, message } }).catch(() => undefined);
          };
    const outcome = await callServedTool(tool, request.params.arguments, {
      broker,
      timeoutMs,
      cancelled: extra.signal,
      observer: hooks,
      ...(progress ? { progress } : {}),
    });
    if (!outcome.ok) return toolErrorResult(outcome.failure);
    const sendStructured = outcome.structured !== undefined && (tool.publishOutputSchema || showsViews());
    return { content: [{ type: 'text', text: outcome.text }], ...(sendStructured ? { structuredContent: outcome.structured } : {}) };
  });
}
