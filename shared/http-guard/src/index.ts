/** The request guards every Terminal MCP HTTP edge applies (gateway, observer, dashboard
 * server). Pure functions over headers and addresses, plus the two places that touch a
 * socket: listening on loopback (checked again after binding) and the capped body reader. */
export { hostForUrl, isLoopbackBindAddress } from './loopback.js';
export { listenOnLoopback } from './listen.js';
export {
  createHostPolicy,
  isAllowedHost,
  isAllowedOrigin,
  isSameOriginMutation,
  ownOrigin,
  parseHostHeader,
  parsePublicHosts,
  type HostPolicy,
  type PublicHost,
} from './host-origin.js';
export { DEFAULT_MAX_BODY_BYTES, readLimitedBody, type BodyResult } from './body.js';
export { bearerTokenMatches, wwwAuthenticate } from './bearer.js';
export { parsePortSetting, parsePublicHostsSetting } from './settings.js';
export { COMMON_RESPONSE_HEADERS, jsonRpcError, sendJson, sendText } from './responses.js';
export { createBoundedServer, DEFAULT_HTTP_LIMITS, type HttpLimits } from './limits.js';
