/**
 * The shape of one gateway tool (see @terminal-mcp/mcp-kit): its public MCP definition
 * next to the broker procedure it calls and how its result reads as text. A capability
 * file (`tools/<capability>.ts`) exports a list of these; `tools/index.ts` is the table.
 * Gateway tools choose their annotations deliberately (input tools are not read-only).
 */
import { defineMcpTool, READ_ONLY_ANNOTATIONS, type McpTool, type ToolContext as McpToolContext, type ToolSpec as McpToolSpec } from '@terminal-mcp/mcp-kit';
import type { z } from 'zod';

export { READ_ONLY_ANNOTATIONS };

export type ToolContext = McpToolContext<'gateway'>;

export type ToolSpec<Shape extends z.ZodRawShape, Out extends z.ZodObject> = McpToolSpec<'gateway', Shape, Out>;

/** A tool with its types erased, so tools of different shapes fit one table. */
export type GatewayTool = McpTool<'gateway'>;

export function defineTool<Shape extends z.ZodRawShape, Out extends z.ZodObject>(spec: ToolSpec<Shape, Out>): GatewayTool {
  return defineMcpTool(spec);
}
