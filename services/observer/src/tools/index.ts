/** Every tool the observer serves, in one table: exactly eighteen, all read-only
 * (tools.test.ts pins the list). A new tool is a public API decision, not a refactor. */
import type { ObserverTool } from './define-tool.js';
import { noteTools } from './notes.js';
import { sessionTools } from './sessions.js';
import { sourceTools } from './sources.js';

export const OBSERVER_TOOLS: readonly ObserverTool[] = [...sessionTools, ...sourceTools, ...noteTools];

export { defineTool, READ_ONLY_ANNOTATIONS, type ObserverTool, type ToolContext, type ToolSpec } from './define-tool.js';
