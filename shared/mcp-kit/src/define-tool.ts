/**
 * The shape of one MCP tool: its public definition (name, schemas, annotations) next to
 * the broker procedure it calls and how its result reads as text. Generic over the
 * broker socket role, so a tool can only call what its service's socket offers; each
 * service binds the role (and its annotation policy) in its own `tools/define-tool.ts`.
 */
import type { BrokerClient } from '@terminal-mcp/broker-client';
import type { SocketRole } from '@terminal-mcp/contract';
import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

export interface ToolContext<R extends SocketRole> {
  broker: BrokerClient<R>;
  /** Aborts when the MCP client cancels or the broker call budget runs out; pass it to
   * every broker call. */
  signal: AbortSignal;
  /** Sends an MCP progress notification when the client asked for them (a progressToken
   * in the call's _meta); absent otherwise. For tools that wait. */
  progress?: (progress: number, message: string) => void;
}

/**
 * Every read tool says so: ChatGPT and Claude ask the user to confirm each call of a tool
 * without `readOnlyHint: true`, and the SDK defaults are `readOnlyHint: false,
 * destructiveHint: true`. `openWorldHint: false`: the tools touch only this host's tmux
 * and configured project roots.
 */
export const READ_ONLY_ANNOTATIONS = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
} as const satisfies ToolAnnotations;

export interface ToolSpec<R extends SocketRole, Shape extends z.ZodRawShape, Out extends z.ZodObject, A extends ToolAnnotations = ToolAnnotations> {
  /** Public API: hosted clients cache tool lists for a long time. Never rename. */
  name: string;
  title: string;
  /** Written for a model: what it returns, when to use it, what it needs. Short: every
   * byte is paid in every conversation (see tool-catalogue.ts). */
  description: string;
  inputShape: Shape;
  /** The broker's own schema for these arguments (the shape plus its refinements, e.g.
   * "exactly one of session or binding"), so the edge refuses with the same rules and a
   * readable message. Default: the shape as a strict object. */
  inputSchema?: z.ZodType;
  /** Argument names of the original Terminal MCP → ours (documented in docs/tools.md). */
  aliases?: Readonly<Record<string, string>>;
  /** Original arguments with no counterpart here → why, and what to do instead; refused. */
  retired?: Readonly<Record<string, string>>;
  outputSchema: Out;
  /** List `outputSchema` in tools/list (default false): only where a client acts on the
   * fields itself; the SDK client then validates every structured result against it. */
  publishOutputSchema?: boolean;
  annotations: A;
  /** `_meta` in tools/list, e.g. the MCP Apps view the tool's result is shown in (live-view.ts). */
  meta?: Readonly<Record<string, unknown>>;
  /** The tool types into a pane: a broker call cut (or out of time) after it was sent
   * answers DELIVERY_UNKNOWN, not BROKER_UNAVAILABLE or TIMEOUT (tool-server.ts). */
  delivers?: boolean;
  run(args: z.output<z.ZodObject<Shape>>, ctx: ToolContext<R>): Promise<z.output<Out>>;
  /** The answer as text (`content`): exact and complete, because it is the whole answer
   * unless the tool returns `structuredContent` (see `returnsStructured`). */
  render(result: z.output<Out>): string;
}

/** A tool with its types erased, so tools of different shapes fit one table. */
export interface McpTool<R extends SocketRole, A extends ToolAnnotations = ToolAnnotations> {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly inputShape: z.ZodRawShape;
  readonly inputSchema: z.ZodType;
  readonly aliases: Readonly<Record<string, string>>;
  readonly retired: Readonly<Record<string, string>>;
  readonly outputSchema: z.ZodObject;
  readonly publishOutputSchema: boolean;
  readonly annotations: A;
  readonly meta?: Readonly<Record<string, unknown>>;
  /** See ToolSpec.delivers. */
  readonly delivers: boolean;
  /** Whether the result also travels as `structuredContent` (returnsStructured). */
  readonly structured: boolean;
  /** `args` have already been checked against `inputSchema` (tool-arguments.ts). `result` is
   * the procedure's answer as is (the HTTP API's JSON), `text` its rendering for a model. */
  invoke(args: Record<string, unknown>, ctx: ToolContext<R>): Promise<{ result: unknown; structured?: Record<string, unknown>; text: string }>;
}

/**
 * The rule for `structuredContent` (issue 31: a model pays for every byte, and hosts show it
 * the structured copy as well as the text): a result travels as structured content only
 * where a client acts on its fields itself, which a tool states in its definition:
 * - it publishes its output schema (automation branches on a field: a receipt, a wait's
 *   state and resume token; the MCP SDK also requires structured content then), or
 * - it declares an MCP Apps view (`_meta.ui`), whose script reads the fields (live-view.ts);
 *   then only to a client that declared the MCP Apps ui extension (tool-server.ts).
 * Every other tool answers with text only, and that text is the whole answer.
 * docs/tools.md states the rule; test/src/answer-bytes.test.ts holds every answer to it.
 */
export function returnsStructured(spec: { publishOutputSchema?: boolean; meta?: Readonly<Record<string, unknown>> }): boolean {
  return spec.publishOutputSchema === true || spec.meta?.ui !== undefined;
}

export function defineMcpTool<R extends SocketRole, Shape extends z.ZodRawShape, Out extends z.ZodObject, A extends ToolAnnotations>(
  spec: ToolSpec<R, Shape, Out, A>,
): McpTool<R, A> {
  return {
    name: spec.name,
    title: spec.title,
    description: spec.description,
    inputShape: spec.inputShape,
    inputSchema: spec.inputSchema ?? z.object(spec.inputShape).strict(),
    aliases: spec.aliases ?? {},
    retired: spec.retired ?? {},
    outputSchema: spec.outputSchema,
    publishOutputSchema: spec.publishOutputSchema ?? false,
    annotations: spec.annotations,
    ...(spec.meta ? { meta: spec.meta } : {}),
    delivers: spec.delivers === true,
    structured: returnsStructured(spec),
    async invoke(args, ctx) {
      const result = await spec.run(args as z.output<z.ZodObject<Shape>>, ctx);
      return { result, ...(returnsStructured(spec) ? { structured: result as Record<string, unknown> } : {}), text: spec.render(result) };
    },
  };
}
