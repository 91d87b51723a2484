/** The five tmux read tools: the same names, schemas and policy as the gateway's (the
 * broker's sessions.* queries decide access). Shared through @terminal-mcp/mcp-kit. */
import { sessionReadTools } from '@terminal-mcp/mcp-kit';
import type { ObserverTool } from './define-tool.js';

export const sessionTools: readonly ObserverTool[] = sessionReadTools<'observer'>();
