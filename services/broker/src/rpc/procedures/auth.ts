/**
 * Operator sign-in. The dashboard's server (web.sock) gets `auth.*`: log in, log out,
 * validate a session cookie, change the password. The observer (observer.sock) gets none of these:
 * its OAuth approval (`oauth.approveAuthorization`) checks the operator's password with
 * the same throttling inside the one call that issues the code.
 * Tokens and passwords are inputs only; they are never logged.
 */
import {
  changePasswordInputSchema,
  loginInputSchema,
  sessionTokenInputSchema,
  type IssuedSession,
  type OperatorUser,
  type ValidatedSession,
} from '@terminal-mcp/contract';
import type { UserRecord } from '../../effects/store/webauth-store.js';
import { changePassword } from '../../webauth/change-password.js';
import type { WebauthEnv } from '../../webauth/env.js';
import { login, type LoginSuccess } from '../../webauth/login.js';
import { refusalError, type AuthRefusal } from '../../webauth/refusal.js';
import { invalidateSessionToken, validateSessionToken } from '../../webauth/sessions.js';
import type { BrokerContext } from '../context.js';
import { raise, webProcedure } from '../trpc.js';

/** Signing in and out is how a caller becomes an operator: the socket admits it. */
const signIn = webProcedure.meta({ effect: 'sign-in' });

const envOf = (ctx: BrokerContext): WebauthEnv => ctx.deps.webauth;

const operatorUser = (u: UserRecord): OperatorUser => ({ id: u.id, username: u.username, mustChangePassword: u.mustChangePassword });

function issued(result: LoginSuccess | AuthRefusal): IssuedSession {
  if (!result.ok) raise(refusalError(result));
  return {
    token: result.token,
    expiresAt: new Date(result.expiresAt).toISOString(),
    mustChangePassword: result.mustChangePassword,
    user: operatorUser(result.user),
  };
}

export const auth = {
  login: signIn.input(loginInputSchema).mutation(async ({ ctx, input }) => issued(await login(envOf(ctx), input))),

  logout: signIn.input(sessionTokenInputSchema).mutation(({ ctx, input }): { ok: true } => {
    const env = envOf(ctx);
    const valid = validateSessionToken(env, input.token);
    invalidateSessionToken(env, input.token);
    if (valid) env.log.info({ event: 'webauth.logout', userId: valid.user.id, username: valid.user.username }, 'signed out');
    return { ok: true };
  }),

  validateSession: webProcedure.input(sessionTokenInputSchema).query(({ ctx, input }): ValidatedSession => {
    const valid = validateSessionToken(envOf(ctx), input.token);
    return valid ? { user: operatorUser(valid.user), expiresAt: new Date(valid.session.expiresAt).toISOString() } : null;
  }),

  changePassword: signIn
    .input(changePasswordInputSchema)
    .mutation(async ({ ctx, input }) => issued(await changePassword(envOf(ctx), input))),
};
