/**
 * Which toolset each gateway tool belongs to: the operation table's `tool.toolset`
 * (shared/contract operations/table.ts), so a reader sees what a config line such as
 * `oauth: [core, input]` lists in one place, and the catalogue budget test
 * (test/src/tool-catalogue.test.ts) measures every combination.
 */
import { TOOLSET_TOOLS, gatewayOperationOfTool, type GatewayToolset } from '@terminal-mcp/contract';

export { TOOLSET_TOOLS };

/** The toolset a tool belongs to (undefined for a name with no row: a test forbids that). */
export function toolsetOf(toolName: string): GatewayToolset | undefined {
  return gatewayOperationOfTool(toolName)?.tool.toolset;
}
