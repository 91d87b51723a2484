/** The observer's public API: the HTTP service (for the binary and tests), the MCP
 * server factory and its tool table. */
export { startObserverHttp, type ObserverHttpOptions, type RunningObserverHttp } from './http/observer-http.js';
export {
  observerSettingsFromEnv,
  ObserverConfigError,
  DEFAULT_OBSERVER_HOST,
  DEFAULT_OBSERVER_PORT,
  type ObserverHttpSettings,
} from './http/options.js';
export { oauthUrls as observerUrls, type OAuthUrls as ObserverUrls } from '@terminal-mcp/oauth-http';
export { createObserverMcpServer, SERVER_INSTRUCTIONS, type ObserverCaller, type ObserverServerDeps } from './server.js';
export { OBSERVER_TOOLS, READ_ONLY_ANNOTATIONS, type ObserverTool } from './tools/index.js';
export { ERROR_META_KEY } from '@terminal-mcp/mcp-kit';
export { createObserverLogger } from './logger.js';
export { OBSERVER_VERSION } from './version.js';
