/**
 * The OAuth identity behind a gateway request. When the gateway serves an MCP request
 * that came with an OAuth access token, it names that token in CREDENTIAL_HEADER on every
 * broker call. The broker verifies it here itself — the gateway is an unprivileged process
 * relaying internet input, so its word is not taken for who is calling or what they may
 * do — and derives the audit actor (client name and operator) and the scopes. Input
 * procedures then refuse a caller without the input scope (INPUT_NOT_ALLOWED).
 */
import { AppError, GATEWAY_INPUT_SCOPE, type SocketRole } from '@terminal-mcp/contract';
import type { Logger } from 'pino';
import type { OAuthLoginEnv } from './env.js';
import { verifyToken } from './tokens.js';

export interface OAuthCaller {
  /** e.g. `gateway:oauth:ChatGPT@alice` */
  actor: string;
  /** Empty for a token that no longer verifies: such a caller may not type. */
  scopes: readonly string[];
}

const MAX_CREDENTIAL_CHARS = 512;
const clean = (text: string, max: number) => text.replace(/\s+/g, '-').replace(/[^\w.-]/g, '').slice(0, max) || 'unnamed';

export function oauthCallerFromHeader(deps: { oauth: { gateway: OAuthLoginEnv }; log: Logger }, role: SocketRole, header: string | string[] | undefined): OAuthCaller | undefined {
  const token = Array.isArray(header) ? header[0] : header;
  // Only the gateway serves OAuth clients that can type; elsewhere the header means nothing.
  if (role !== 'gateway' || token === undefined || token === '') return undefined;
  if (token.length > MAX_CREDENTIAL_CHARS) return { actor: 'gateway:oauth:invalid', scopes: [] };
  try {
    const env = deps.oauth.gateway;
    const verified = verifyToken(env, env.webauth.store, token, undefined);
    return { actor: `gateway:oauth:${clean(verified.clientName, 40)}@${clean(verified.user.username, 64)}`, scopes: verified.scopes };
  } catch (err) {
    if (!(err instanceof AppError)) deps.log.error({ event: 'oauth.credential_check_failed', err }, 'could not check a gateway credential');
    else deps.log.warn({ event: 'security.oauth_credential_refused', role }, 'gateway call with a credential that does not verify');
    return { actor: 'gateway:oauth:invalid', scopes: [] };
  }
}

/** Thrown by every input procedure for an OAuth caller without the input scope. Callers
 * without OAuth (stdio, the static token, the dashboard) are governed by the input policy
 * alone, as before. */
/** An OAuth caller whose token lacks the input scope (a static-token or stdio caller has no
 * OAuth identity and is not limited by scopes). */
export function lacksInputScope(oauth: OAuthCaller | undefined): boolean {
  return oauth !== undefined && !oauth.scopes.includes(GATEWAY_INPUT_SCOPE);
}

export function assertInputScope(oauth: OAuthCaller | undefined): void {
  if (lacksInputScope(oauth)) {
    throw new AppError(
      'INPUT_NOT_ALLOWED',
      'this connection was approved for reading only',
      `The operator approved this OAuth client without the ${GATEWAY_INPUT_SCOPE} scope. To type, reconnect the client and allow input on the consent page.`,
    );
  }
}
