/**
 * The consent page's approval: the operator's credentials and the authorization request
 * arrive together, and a code is issued only after the password checks out (with the
 * dashboard's throttling, channel "oauth"). The observer therefore cannot mint a code on
 * its own; it only relays what the operator typed.
 *
 * The code is single-use, lives `authorization_code_ttl_seconds` (60 s by default) and is
 * bound to the client, the exact redirect URI, the PKCE S256 challenge, the resource
 * (the token audience) and the user.
 */
import { AppError, type ApproveAuthorizationInput, type ApprovedAuthorization } from '@terminal-mcp/contract';
import { verifyCredentials } from '../webauth/login.js';
import { refusalError } from '../webauth/refusal.js';
import { describeAuthorization } from './clients.js';
import type { OAuthLoginEnv } from './env.js';
import { grantedScope } from './policy.js';
import { hashSecret, newSecret } from './secrets.js';

/** RFC 8707: an absolute URI without a fragment. */
export function isResourceIndicator(value: string): boolean {
  if (value.includes('#')) return false;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:';
  } catch {
    return false;
  }
}

export async function approveAuthorization(env: OAuthLoginEnv, input: ApproveAuthorizationInput): Promise<ApprovedAuthorization> {
  // The request first: a malformed one costs no password hash and no throttle slot.
  const described = describeAuthorization(env, { clientId: input.clientId, redirectUri: input.redirectUri });
  if (!described.ok) throw new AppError('INVALID_ARGUMENT', described.description);
  if (!isResourceIndicator(input.resource)) throw new AppError('INVALID_ARGUMENT', 'resource must be an absolute http(s) URI without a fragment');

  const checked = await verifyCredentials(env.webauth, { username: input.username, password: input.password, sourceIp: input.sourceIp }, 'oauth');
  if (!checked.ok) throw refusalError(checked);
  if (checked.user.mustChangePassword) {
    throw new AppError('FORBIDDEN', 'this account must change its password in the dashboard before it can approve access');
  }

  const now = env.now();
  const code = newSecret('code');
  const scope = grantedScope(input.scope, env.settings.scopes);
  env.store.insertCode({
    codeHash: hashSecret(code),
    clientId: input.clientId,
    userId: checked.user.id,
    username: checked.user.username,
    redirectUri: input.redirectUri,
    codeChallenge: input.codeChallenge,
    resource: input.resource,
    scope,
    createdAt: now,
    expiresAt: now + env.settings.authorization_code_ttl_seconds * 1000,
    usedAt: null,
    grantId: null,
  });
  env.log.info(
    { event: 'oauth.authorization_approved', clientId: input.clientId, clientName: described.clientName, userId: checked.user.id, username: checked.user.username, sourceIp: input.sourceIp },
    'OAuth authorization approved',
  );
  return { code, scope, user: { id: checked.user.id, username: checked.user.username } };
}
