/** The read tools, shared with the observer (see @terminal-mcp/mcp-kit), and the
 * gateway-only transcript export. */
import { sessionReadTools, transcriptExportTool } from '@terminal-mcp/mcp-kit';
import type { GatewayTool } from './define-tool.js';

export const sessionTools: readonly GatewayTool[] = [...sessionReadTools<'gateway'>(), transcriptExportTool()];
