/** How the operator-login domain says no: a plain value the procedures turn into our
 * error codes (and the CLI into a message). Messages are safe to show the caller. */
import { AppError } from '@terminal-mcp/contract';

export type AuthRefusal =
  | { ok: false; code: 'UNAUTHENTICATED' | 'FORBIDDEN' | 'INVALID_ARGUMENT' | 'NOT_FOUND'; message: string }
  | { ok: false; code: 'RATE_LIMITED'; message: string; retryAfterSeconds: number };

/** The one answer to a wrong password and an unknown user alike. */
export const BAD_CREDENTIALS: AuthRefusal = { ok: false, code: 'UNAUTHENTICATED', message: 'invalid user name or password' };

export function refuse(code: Exclude<AuthRefusal['code'], 'RATE_LIMITED'>, message: string): AuthRefusal {
  return { ok: false, code, message };
}

export function rateLimited(retryAfterSeconds: number): AuthRefusal {
  return {
    ok: false,
    code: 'RATE_LIMITED',
    message: `too many failed sign-in attempts: retry in ${retryAfterSeconds} s`,
    retryAfterSeconds,
  };
}

export function refusalError(refusal: AuthRefusal): AppError {
  return refusal.code === 'RATE_LIMITED'
    ? new AppError('RATE_LIMITED', refusal.message, undefined, { retryAfterSeconds: refusal.retryAfterSeconds })
    : new AppError(refusal.code, refusal.message);
}
