/** The MCP gateway's public API: the server factory, the HTTP edge (for the binaries,
 * tests and the bench), metrics and error mapping. */
export { createGatewayMcpServer, SERVER_INSTRUCTIONS, DEFAULT_BROKER_TIMEOUT_MS, type GatewayServerDeps } from './server.js';
export { startGatewayHttp, type GatewayHttpOptions, type RunningGatewayHttp } from './http/gateway-http.js';
export { GatewayConfigError, httpSettingsFromEnv, DEFAULT_GATEWAY_HOST, DEFAULT_GATEWAY_PORT, type GatewayHttpSettings } from './http/options.js';
export { isLoopbackBindAddress, createHostPolicy, isAllowedHost, isAllowedOrigin, parsePublicHosts, type HostPolicy, type PublicHost } from '@terminal-mcp/http-guard';
export { createToolMetrics, type ToolMetrics, type RejectionReason } from './metrics.js';
export { ERROR_META_KEY, ERROR_PRESENTATION, toolErrorResult, describeToolFailure, expandRows, parseRows, type CompactRows, type ToolErrorContent, type ErrorPresentation } from '@terminal-mcp/mcp-kit';
export { gatewayCatalogue, createCatalogues, FULL_CATALOGUE, type GatewayCatalogue, type CatalogueChoice } from './catalogue.js';
export { TOOLSET_TOOLS, toolsetOf } from './tools/toolsets.js';
export { INPUT_TOOL_NAMES } from './http/oauth-profile.js';
export { GATEWAY_TOOLS, READ_ONLY_ANNOTATIONS, defineTool, type GatewayTool, type ToolContext, type ToolSpec } from './tools/index.js';
export { createGatewayLogger } from './logger.js';
export { GATEWAY_NAME, GATEWAY_VERSION, versionInfo, type VersionInfo } from './version.js';
