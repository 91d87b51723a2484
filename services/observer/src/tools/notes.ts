/** The two note read tools (note_search, note_get), shared with the gateway through
 * @terminal-mcp/mcp-kit. The observer's router names no note write. */
import { noteReadTools } from '@terminal-mcp/mcp-kit';
import type { ObserverTool } from './define-tool.js';

export const noteTools: readonly ObserverTool[] = noteReadTools<'observer'>();
