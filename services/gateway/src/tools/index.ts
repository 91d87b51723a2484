/** Every tool the gateway serves, in one table. A new capability adds a
 * `tools/<capability>.ts` exporting its list and one line here. */
import type { GatewayTool } from './define-tool.js';
import { auditTools } from './audit.js';
import { bindingTools } from './bindings.js';
import { humanTools } from './human.js';
import { inputTools } from './input.js';
import { lifecycleTools } from './lifecycle.js';
import { nodeTools } from './nodes.js';
import { noteTools } from './notes.js';
import { projectTools } from './projects.js';
import { sessionTools } from './sessions.js';
import { supervisorTools } from './supervisor.js';
import { waitTools } from './wait.js';

export const GATEWAY_TOOLS: readonly GatewayTool[] = [...sessionTools, ...waitTools, ...inputTools, ...humanTools, ...bindingTools, ...auditTools, ...noteTools, ...projectTools, ...supervisorTools, ...lifecycleTools, ...nodeTools];

export { defineTool, READ_ONLY_ANNOTATIONS, type GatewayTool, type ToolContext, type ToolSpec } from './define-tool.js';
