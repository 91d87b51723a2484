/** The `/connectors` form actions: revoke one OAuth client (and every grant it holds), one
 * grant, or every grant of one operator account. Each action authorises itself
 * (requireUser); hooks.server.ts has already refused cross-origin POSTs. The broker
 * records the signed-in operator (derived from the session token the call carries) with
 * every revocation.
 *
 * Revoking everything a user granted is confirmed in two steps, enforced here rather
 * than in the page: a POST without `confirm` equal to the user name changes nothing and
 * answers `confirmUser`, which the page turns into a confirmation form. */
import { fail, type RequestEvent } from '@sveltejs/kit';
import { OAUTH_LIMITS } from '@terminal-mcp/contract';
import type { UiError } from '../ui-error.js';
import { requireUser } from './auth.js';
import { broker } from './broker.js';
import { toUiError } from './failure.js';

export type RevokedKind = 'client' | 'grant' | 'user';

export interface ConnectorActionResult {
  revoked?: { kind: RevokedKind; grants: number };
  confirmUser?: { username: string; grants: number };
}

const GRANT_ID_MAX = 64;
const USERNAME_MAX = 64;

function field(form: FormData, name: string, max: number): string | undefined {
  const v = form.get(name);
  return typeof v === 'string' && v.length > 0 && v.length <= max ? v : undefined;
}

const invalid = (detail: string) => fail(400, { error: { code: 'INVALID_ARGUMENT', detail } satisfies UiError });

async function revoking(kind: RevokedKind, call: () => Promise<{ revokedGrants: number }>) {
  try {
    const { revokedGrants } = await call();
    return { revoked: { kind, grants: revokedGrants } } satisfies ConnectorActionResult;
  } catch (err) {
    const { status, error } = toUiError(err);
    return fail(status, { error });
  }
}

export async function revokeClientAction(event: RequestEvent) {
  requireUser(event);
  const clientId = field(await event.request.formData(), 'client', OAUTH_LIMITS.clientId);
  if (!clientId) return invalid('client');
  return revoking('client', () => broker().oauthAdmin.revokeClient.mutate({ clientId }));
}

export async function revokeGrantAction(event: RequestEvent) {
  requireUser(event);
  const grantId = field(await event.request.formData(), 'grant', GRANT_ID_MAX);
  if (!grantId) return invalid('grant');
  return revoking('grant', () => broker().oauthAdmin.revokeGrant.mutate({ grantId }));
}

export async function revokeUserAction(event: RequestEvent) {
  requireUser(event);
  const form = await event.request.formData();
  const username = field(form, 'username', USERNAME_MAX);
  if (!username) return invalid('username');
  if (form.get('confirm') !== username) {
    try {
      const grants = (await broker().oauthAdmin.listGrants.query()).filter((g) => g.username === username).length;
      return { confirmUser: { username, grants } } satisfies ConnectorActionResult;
    } catch (err) {
      const { status, error } = toUiError(err);
      return fail(status, { error });
    }
  }
  return revoking('user', () => broker().oauthAdmin.revokeUser.mutate({ username }));
}
