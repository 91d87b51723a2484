/** The five read tools, shared with the observer (see @terminal-mcp/mcp-kit). */
import { sessionReadTools } from '@terminal-mcp/mcp-kit';
import type { GatewayTool } from './define-tool.js';

export const sessionTools: readonly GatewayTool[] = sessionReadTools<'gateway'>();
