/**
 * The MCP server both services build and the wrapper every tool call goes through: a
 * time budget on the broker call, the caller's broker actor around it, and broker
 * failures turned into `isError` results (tool-errors.ts). What differs per service —
 * whose actor, metrics, the audit record, log levels — arrives as hooks.
 */
import { performance } from 'node:perf_hooks';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { objectFromShape } from '@modelcontextprotocol/sdk/server/zod-compat.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { CallToolResult, Implementation, ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { BrokerClient } from '@terminal-mcp/broker-client';
import type { SocketRole } from '@terminal-mcp/contract';
import type { McpTool } from './define-tool.js';
import { describeToolFailure, timeoutFailure, toolErrorResult, type DescribedFailure } from './tool-errors.js';

/** Generous for a read (they take milliseconds); it exists so a stuck broker or tmux
 * cannot hold a client's call open forever. */
export const DEFAULT_BROKER_TIMEOUT_MS = 30_000;

export type ToolCallExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/*
 * Built once per process and shared by every McpServer, because stateless HTTP builds a
 * server per request: the SDK's JSON-schema validator (an Ajv instance, the costliest part
 * of constructing a server; the SDK uses it only to check elicitation answers, and it
 * holds no per-connection state), and each tool's input object schema (the SDK would wrap
 * the raw shape in a new zod object per registration, and zod compiles a parser per
 * object on first use). The same function the SDK calls builds it, so validation and
 * tools/list output are unchanged.
 */
let sharedSchemaValidator: AjvJsonSchemaValidator | undefined;
const inputSchemas = new WeakMap<McpTool<SocketRole>, ReturnType<typeof objectFromShape>>();

function inputSchemaOf(tool: McpTool<SocketRole>): ReturnType<typeof objectFromShape> {
  let schema = inputSchemas.get(tool);
  if (schema === undefined) {
    schema = objectFromShape(tool.inputShape);
    inputSchemas.set(tool, schema);
  }
  return schema;
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
}

export function registerTools<R extends SocketRole>(server: McpServer, tools: readonly McpTool<R>[], options: RegisterToolsOptions<R>): void {
  const { broker, timeoutMs, hooks } = options;
  for (const tool of tools) {
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: tool.description,
        inputSchema: inputSchemaOf(tool as McpTool<SocketRole>),
        outputSchema: tool.outputSchema,
        annotations: { title: tool.title, ...tool.annotations },
      },
      async (args: Record<string, unknown>, extra: ToolCallExtra): Promise<CallToolResult> => {
        const started = performance.now();
        const elapsedMs = () => performance.now() - started;
        const budget = AbortSignal.timeout(timeoutMs);
        const signal = AbortSignal.any([extra.signal, budget]);
        try {
          const { structured, text } = await hooks.asActor(extra, () => tool.invoke(args, { broker, signal }));
          hooks.succeeded(tool.name, elapsedMs());
          return { content: [{ type: 'text', text }], structuredContent: structured };
        } catch (err) {
          const described = budget.aborted
            ? timeoutFailure(`the broker did not answer within ${Math.round(timeoutMs / 1000)} s`)
            : extra.signal.aborted
              ? timeoutFailure('the call was cancelled')
              : describeToolFailure(err);
          hooks.failed(tool.name, elapsedMs(), described, err);
          return toolErrorResult(described.failure);
        }
      },
    );
  }
}
