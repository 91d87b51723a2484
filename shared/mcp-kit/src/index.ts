/** What the gateway and the observer MCP servers share: how a broker failure becomes an
 * `isError` tool result (with the details under `_meta['terminal-mcp/error']`), and the
 * typed shape of one tool. */
export {
  describeToolFailure,
  ERROR_META_KEY,
  ERROR_PRESENTATION,
  timeoutFailure,
  toolErrorResult,
  type DescribedFailure,
  type ErrorPresentation,
  type ToolErrorContent,
  type ToolErrorResult,
} from './tool-errors.js';
export { defineMcpTool, READ_ONLY_ANNOTATIONS, type McpTool, type ToolContext, type ToolSpec } from './define-tool.js';
export { renderBatch, renderPaneText, renderSessionList, renderStatus, sessionReadTools } from './session-tools.js';
