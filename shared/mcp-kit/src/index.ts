/** What the gateway and the observer MCP servers share: how a broker failure becomes an
 * `isError` tool result (with the details under `_meta['terminal-mcp/error']`), the
 * typed shape of one tool, the server and tool-call wrapper both build, the
 * Streamable HTTP transport both serve it over (JSON answers, on node:http), and the HTTP
 * service and binary runner around it (mcp-http-service.ts, service-bin.ts). */
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
export { defineMcpTool, READ_ONLY_ANNOTATIONS, returnsStructured, type McpTool, type ToolContext, type ToolSpec } from './define-tool.js';
export {
  accessFlags,
  compactBatch,
  compactSessionList,
  renderBatch,
  renderPaneText,
  renderReadSince,
  renderSessionList,
  renderStatus,
  sessionReadTools,
  SESSION_LIST_COLUMNS,
  type BatchAnswer,
  type SessionListAnswer,
} from './session-tools.js';
export { cellText, compactRows, expandRows, parseRows, renderCompactRows, renderRecords, type Cell, type CompactRows } from './compact-rows.js';
export { checkToolArguments, normalizeArgumentNames, type ArgumentNames } from './tool-arguments.js';
export { publishedInputSchema, publishedOutputSchema } from './tool-catalogue.js';
export { NOTE_LIST_COLUMNS, noteReadTools, noteRecord, NOTE_UNTRUSTED, renderNote, renderNoteHits, renderNoteSummary } from './note-tools.js';
export {
  createToolServer,
  listedTool,
  DEFAULT_BROKER_TIMEOUT_MS,
  registerTools,
  type RegisterToolsOptions,
  type ToolCallExtra,
  type ToolCallHooks,
} from './tool-server.js';
export { exampleArguments, renderApiMarkdown, renderSkillMarkdown, type ToolDocsInfo } from './tool-docs.js';
export { API_DOC_URI, LEARN_PROMPT, registerDocResources, registerServedResources, SKILL_DOC_URI, type InstanceDocs, type ServedResource } from './doc-resources.js';
export { LIVE_VIEW, LIVE_VIEW_TOOL_META, LIVE_VIEW_URI, liveViewHtml } from './live-view.js';
export { JsonHttpServerTransport, type JsonHttpTransportOptions } from './json-http-transport.js';
export {
  createMcpHttpService,
  requireLoopbackHost,
  type BoundMcpHttpService,
  type HttpErrorBodies,
  type McpHttpServiceHandlers,
  type McpHttpServiceOptions,
  type RouteHandler,
  type RunningMcpHttpService,
  type ServiceRoute,
} from './mcp-http-service.js';
export { SESSION_ID_HEADER, type McpCaller, type McpLiveSession, type RefusalReason } from './mcp-http-endpoint.js';
export { createMcpSessionTable, DEFAULT_MAX_SESSIONS, DEFAULT_SESSION_IDLE_MS, type LiveSession, type McpSessionTable, type SessionLookup } from './mcp-sessions.js';
export { httpServiceSettingsFromEnv, ServiceConfigError, type HttpServiceSettings, type HttpServiceSettingsSpec } from './service-settings.js';
export { runServiceBin, type ServiceBin, type StartedService } from './service-bin.js';
export { callServedTool, refuseUnservedTool, type ToolCallObserver, type ToolCallOptions, type ToolCallOutcome } from './tool-call.js';
