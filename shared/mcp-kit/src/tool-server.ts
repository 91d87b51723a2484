/**
 * The MCP server both services build and the wrapper every tool call goes through: a
 * time budget on the broker call, the caller's broker actor around it, and broker
 * failures turned into `isError` results (tool-errors.ts). What differs per service —
 * whose actor, metrics, the audit record, log levels — arrives as hooks.
 */
import { performance } from 'node:perf_hooks';
import { getUiCapability } from '@modelcontextprotocol/ext-apps/server';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult, type Implementation, type ServerNotification, type ServerRequest, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { wasCutAfterSend, type BrokerClient, type BrokerFailure } from '@terminal-mcp/broker-client';
import { closeMatches, type SocketRole } from '@terminal-mcp/contract';
import type { McpTool } from './define-tool.js';
import { checkToolArguments } from './tool-arguments.js';
import { publishedInputSchema, publishedOutputSchema } from './tool-catalogue.js';
import { deliveryUnknownFailure, describeToolFailure, ERROR_PRESENTATION, timeoutFailure, toolErrorResult, type DescribedFailure } from './tool-errors.js';
import { callBudget } from './call-budget.js';

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

export interface ToolCallHooks {
  /** Runs `call` with the broker actor this call acts for set (the broker records it). */
  asActor<T>(extra: ToolCallExtra, call: () => Promise<T>): Promise<T>;
  /** `ms` is unrounded elapsed milliseconds. */
  succeeded(tool: string, ms: number): void;
  failed(tool: string, ms: number, described: DescribedFailure, err: unknown): void;
}

export interface RegisterToolsOptions<R extends SocketRole> {
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
    const started = performance.now();
    const elapsedMs = () => performance.now() - started;
    const refusal = tool ? undefined : hidden?.get(request.params.name);
    if (refusal) {
      hooks.failed(request.params.name, elapsedMs(), { failure: refusal, presentation: ERROR_PRESENTATION[refusal.code] }, undefined);
      return toolErrorResult(refusal);
    }
    // No hooks: the name is the caller's, and metrics label by tool name.
    if (!tool) return unknownToolResult(request.params.name, all);
    const checked = checkToolArguments(request.params.arguments, { tool: tool.name, valid: Object.keys(tool.inputShape), aliases: tool.aliases, retired: tool.retired }, tool.inputSchema);
    if (!checked.ok) {
      const described = { failure: checked.failure, presentation: ERROR_PRESENTATION.INVALID_ARGUMENT };
      hooks.failed(tool.name, elapsedMs(), described, undefined);
      return toolErrorResult(checked.failure);
    }
    const budget = callBudget(extra.signal, timeoutMs);
    try {
      const progressToken = request.params._meta?.progressToken;
      const progress =
        progressToken === undefined
          ? undefined
          : (value: number, message: string) => {
              void extra.sendNotification({ method: 'notifications/progress', params: { progressToken, progress: value, message } }).catch(() => undefined);
            };
      const ctx = { broker, signal: budget.signal, ...(progress ? { progress } : {}) };
      const { structured, text } = await hooks.asActor(extra, () => tool.invoke(checked.args, ctx));
      hooks.succeeded(tool.name, elapsedMs());
      const sendStructured = structured !== undefined && (tool.publishOutputSchema || showsViews());
      return { content: [{ type: 'text', text }], ...(sendStructured ? { structuredContent: structured } : {}) };
    } catch (err) {
      // An input tool's call that reached the broker and then lost its answer (cut, out of
      // time, cancelled) may have typed: say exactly that, never "unavailable".
      const described =
        tool.delivers && (budget.timedOut() || extra.signal.aborted || wasCutAfterSend(err))
          ? deliveryUnknownFailure(budget.timedOut() ? `the broker did not answer within ${Math.round(timeoutMs / 1000)} s` : extra.signal.aborted ? 'the call was cancelled' : 'the connection to the broker broke during the call')
          : budget.timedOut()
            ? timeoutFailure(`the broker did not answer within ${Math.round(timeoutMs / 1000)} s`)
            : extra.signal.aborted
              ? timeoutFailure('the call was cancelled')
              : describeToolFailure(err);
      hooks.failed(tool.name, elapsedMs(), described, err);
      return toolErrorResult(described.failure);
    } finally {
      budget.dispose();
    }
  });
}
