/**
 * The OAuth identity behind a gateway request. When the gateway serves an MCP request
 * that came with an OAuth access token, it names that token in CREDENTIAL_HEADER on every
 * broker call. The broker verifies it here itself — the gateway is an unprivileged process
 * relaying internet input, so its word is not taken for who is calling or what they may
 * do — and derives the identity (the client, by its registered name AND its id, so two
 * clients registered under one name are two identities, and the operator who approved it)
 * and the effects its scopes allow (policy/authority.ts).
 */
import { AppError } from '@terminal-mcp/contract';
import type { Logger } from 'pino';
import { oauthPrincipal, type Principal } from '../policy/authority.js';
import type { OAuthLoginEnv } from './env.js';
import { verifyToken } from './tokens.js';

const MAX_CREDENTIAL_CHARS = 512;
const clean = (text: string, max: number) => text.replace(/\s+/g, '-').replace(/[^\w.-]/g, '').slice(0, max) || 'unnamed';
const INVALID = oauthPrincipal('gateway:oauth:invalid', []);

/** The client id's random part, shortened: enough to tell two clients of one name apart
 * (ids are 128 random bits, minted by the broker). */
const clientTag = (clientId: string) => clientId.replace(/^tmcp_c_/, '').replace(/[^\w-]/g, '').slice(0, 10);

/** The caller behind a gateway credential header, or undefined when there is none. A
 * token that does not verify is a principal that may do nothing. */
export function oauthPrincipalFromHeader(deps: { oauth: { gateway: OAuthLoginEnv }; log: Logger }, header: string | string[] | undefined): Principal | undefined {
  const token = Array.isArray(header) ? header[0] : header;
  if (token === undefined || token === '') return undefined;
  if (token.length > MAX_CREDENTIAL_CHARS) return INVALID;
  try {
    const env = deps.oauth.gateway;
    const verified = verifyToken(env, env.webauth.store, token, undefined);
    return oauthPrincipal(`gateway:oauth:${clean(verified.clientName, 40)}@${clean(verified.user.username, 64)}/${clientTag(verified.clientId)}`, verified.scopes);
  } catch (err) {
    if (!(err instanceof AppError)) deps.log.error({ event: 'oauth.credential_check_failed', err }, 'could not check a gateway credential');
    else deps.log.warn({ event: 'security.oauth_credential_refused', role: 'gateway' }, 'gateway call with a credential that does not verify');
    return INVALID;
  }
}
