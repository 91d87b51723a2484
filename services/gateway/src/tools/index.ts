/** Every tool the gateway serves, in one table. A new capability adds a
 * `tools/<capability>.ts` exporting its list and one line here. */
import type { GatewayTool } from './define-tool.js';
import { sessionTools } from './sessions.js';

export const GATEWAY_TOOLS: readonly GatewayTool[] = [...sessionTools];

export { defineTool, READ_ONLY_ANNOTATIONS, type GatewayTool, type ToolContext, type ToolSpec } from './define-tool.js';
