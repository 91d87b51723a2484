/**
 * The shape of one observer tool (see @terminal-mcp/mcp-kit): its public MCP definition
 * next to the broker query it calls and how its result reads as text. Every observer
 * tool is read-only by construction — its broker client is on observer.sock, whose router
 * names no procedure that changes anything — and says so in its annotations, which a
 * tool cannot choose: the type below admits only READ_ONLY_ANNOTATIONS.
 */
import { defineMcpTool, READ_ONLY_ANNOTATIONS, type McpTool, type ToolContext as McpToolContext, type ToolSpec as McpToolSpec } from '@terminal-mcp/mcp-kit';
import type { z } from 'zod';

export { READ_ONLY_ANNOTATIONS };

export type ToolContext = McpToolContext<'observer'>;

export type ToolSpec<Shape extends z.ZodRawShape, Out extends z.ZodObject> = Omit<McpToolSpec<'observer', Shape, Out>, 'annotations'>;

/** A tool with its types erased, so tools of different shapes fit one table. */
export type ObserverTool = McpTool<'observer', typeof READ_ONLY_ANNOTATIONS>;

export function defineTool<Shape extends z.ZodRawShape, Out extends z.ZodObject>(spec: ToolSpec<Shape, Out>): ObserverTool {
  return defineMcpTool({ ...spec, annotations: READ_ONLY_ANNOTATIONS });
}
