/**
 * Authorisation at every entry point. hooks.server.ts authenticates once per request
 * (cookie -> broker auth.validateSession -> locals.user); a check in +layout.server.ts
 * does NOT protect form actions or +server.ts endpoints, so each of them calls
 * requireUser(event) itself, and each page load calls requirePageUser(event).
 */
import { error, redirect, type RequestEvent } from '@sveltejs/kit';
import type { OperatorUser } from '@terminal-mcp/contract';

/** For actions and endpoints: 401 without a session, 403 while the password must be
 * changed (only the change-password action and logout pass `allowPendingPasswordChange`). */
export function requireUser(event: RequestEvent, opts: { allowPendingPasswordChange?: boolean } = {}): OperatorUser {
  const user = event.locals.user;
  if (!user) error(401, 'sign in first');
  if (user.mustChangePassword && !opts.allowPendingPasswordChange) error(403, 'change your password first');
  return user;
}

/** For page loads: send the browser to the login or change-password page instead. */
export function requirePageUser(event: RequestEvent, opts: { allowPendingPasswordChange?: boolean } = {}): OperatorUser {
  const user = event.locals.user;
  if (!user) redirect(303, '/login');
  if (user.mustChangePassword && !opts.allowPendingPasswordChange) redirect(303, '/change-password');
  return user;
}

export function requireSessionToken(event: RequestEvent): string {
  const token = event.locals.sessionToken;
  if (!token) error(401, 'sign in first');
  return token;
}
