/** The OAuth 2.1 authorization server's HTTP side, shared by the observer and the
 * gateway: mount `oauthRoutes` at the origin's root, guard /mcp with
 * `authenticateBearer`, and let `isOwnConsentFormWithNullOrigin` through the Origin gate. */
export { oauthRoutes, type Handler, type OAuthRoutesOptions, type RouteTable } from './routes.js';
export { authenticateBearer, bearerChallenge, type BearerAuthDeps, type BearerAuthResult } from './bearer-auth.js';
export { isOwnConsentFormWithNullOrigin, refusalPage, redirectTarget } from './authorize.js';
export { callBroker, DEFAULT_BROKER_TIMEOUT_MS, type BrokerCallResult, type OAuthBroker } from './broker-call.js';
export { approvedScope, requestedScopes, scopeField, type OAuthResourceProfile, type ScopeDescription } from './profile.js';
export { clientAddress, readClientIpHeader, readPublicUrl } from './public-url.js';
export { KeyedRateWindows, RateWindow, registrationLimits, REGISTRATIONS_PER_MINUTE, REGISTRATIONS_PER_SOURCE_PER_MINUTE, type RegistrationLimits } from './rate-window.js';
export { oauthUrls, type OAuthUrls } from './urls.js';
export { pathOf, searchOf } from './form.js';
export { escapeHtml } from './consent-page.js';
