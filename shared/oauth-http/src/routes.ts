/**
 * The authorization server's routing table, mounted at the ROOT of a service's origin
 * (hosted clients call /authorize, /token, /register there): discovery metadata,
 * registration, the login-and-consent page, token and revocation. The observer and the
 * gateway mount the same table; what differs is their profile (scopes, wording), their
 * URLs and the broker socket (which decides redirect rules and scopes per server).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendJson } from '@terminal-mcp/http-guard';
import type { Logger } from 'pino';
import { handleAuthorizeGet, handleAuthorizePost, type AuthorizeDeps } from './authorize.js';
import type { OAuthBroker } from './broker-call.js';
import { authorizationServerMetadata, protectedResourceMetadata } from './metadata.js';
import { PendingAuthorizations } from './pending-authorizations.js';
import type { OAuthResourceProfile } from './profile.js';
import { registrationLimits, type RegistrationLimits } from './rate-window.js';
import { handleRegister } from './register.js';
import { handleRevoke, handleToken } from './token.js';
import type { OAuthUrls } from './urls.js';

export type Handler = (req: IncomingMessage, res: ServerResponse) => Promise<void> | void;
export type RouteTable = Record<string, Partial<Record<string, Handler>>>;

export interface OAuthRoutesOptions {
  broker: OAuthBroker;
  urls: OAuthUrls;
  profile: OAuthResourceProfile;
  log: Logger;
  brokerTimeoutMs: number;
  /** See the services' CLIENT_IP_HEADER settings; keys throttling only. */
  clientIpHeader: string | undefined;
  /** Defaults to the standard per-source and total limits. */
  registrations?: RegistrationLimits;
}

export function oauthRoutes(options: OAuthRoutesOptions): RouteTable {
  const { broker, urls, profile, log, brokerTimeoutMs, clientIpHeader } = options;
  const endpointDeps = { broker, urls, log, brokerTimeoutMs };
  const authorizeDeps: AuthorizeDeps = {
    ...endpointDeps,
    profile,
    pending: new PendingAuthorizations(),
    secureCookies: urls.issuer.startsWith('https:'),
    clientIpHeader,
  };
  const registerDeps = { ...endpointDeps, registrations: options.registrations ?? registrationLimits(), clientIpHeader };
  const json = (body: unknown): Handler => (_req, res) => sendJson(res, 200, body);
  return {
    '/.well-known/oauth-authorization-server': { GET: json(authorizationServerMetadata(urls, profile)) },
    '/.well-known/oauth-protected-resource': { GET: json(protectedResourceMetadata(urls, profile)) },
    '/.well-known/oauth-protected-resource/mcp': { GET: json(protectedResourceMetadata(urls, profile)) },
    '/register': { POST: (req, res) => handleRegister(req, res, registerDeps) },
    '/authorize': { GET: (req, res) => handleAuthorizeGet(req, res, authorizeDeps), POST: (req, res) => handleAuthorizePost(req, res, authorizeDeps) },
    '/token': { POST: (req, res) => handleToken(req, res, endpointDeps) },
    '/revoke': { POST: (req, res) => handleRevoke(req, res, endpointDeps) },
  };
}
