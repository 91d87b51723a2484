/**
 * The shape of one observer tool: its public MCP definition next to the broker query it
 * calls and how its result reads as text. Every observer tool is read-only by
 * construction — its broker client is on observer.sock, whose router names no procedure
 * that changes anything — and says so in its annotations.
 */
import type { BrokerClient } from '@terminal-mcp/broker-client';
import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';

export interface ToolContext {
  broker: BrokerClient<'observer'>;
  /** Aborts when the MCP client cancels or the broker call budget runs out. */
  signal: AbortSignal;
}

/** ChatGPT and Claude ask the user to confirm tools without `readOnlyHint: true`; the SDK
 * defaults are `readOnlyHint: false, destructiveHint: true`. `openWorldHint: false`: the
 * tools touch only this host's tmux and configured project roots. */
export const READ_ONLY_ANNOTATIONS = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
} as const satisfies ToolAnnotations;

export interface ToolSpec<Shape extends z.ZodRawShape, Out extends z.ZodObject> {
  /** Public API: hosted clients cache tool lists for a long time. Never rename. */
  name: string;
  title: string;
  /** Written for a model: what it returns, when to use it, what it needs. */
  description: string;
  inputShape: Shape;
  outputSchema: Out;
  run(args: z.output<z.ZodObject<Shape>>, ctx: ToolContext): Promise<z.output<Out>>;
  /** Compact text for `content`; the full result travels in `structuredContent`. */
  render(result: z.output<Out>): string;
}

/** A tool with its types erased, so tools of different shapes fit one table. */
export interface ObserverTool {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly inputShape: z.ZodRawShape;
  readonly outputSchema: z.ZodObject;
  readonly annotations: typeof READ_ONLY_ANNOTATIONS;
  /** `args` have already been validated by the SDK against `inputShape`. */
  invoke(args: Record<string, unknown>, ctx: ToolContext): Promise<{ structured: Record<string, unknown>; text: string }>;
}

export function defineTool<Shape extends z.ZodRawShape, Out extends z.ZodObject>(spec: ToolSpec<Shape, Out>): ObserverTool {
  return {
    name: spec.name,
    title: spec.title,
    description: spec.description,
    inputShape: spec.inputShape,
    outputSchema: spec.outputSchema,
    annotations: READ_ONLY_ANNOTATIONS,
    async invoke(args, ctx) {
      const result = await spec.run(args as z.output<z.ZodObject<Shape>>, ctx);
      return { structured: result as Record<string, unknown>, text: spec.render(result) };
    },
  };
}
