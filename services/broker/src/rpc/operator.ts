/**
 * Dashboard procedures that change something or reveal per-user data run for a signed-in
 * operator only. The dashboard's server sends the operator's session token (the login
 * cookie's value) with each call; the broker validates it against webauth.db
 * (operator-session.ts, once per call in the base of every procedure) and derives the
 * actor itself, so a process that can merely reach web.sock cannot grant access or type
 * as any user. Absent, forged and expired tokens get one answer: UNAUTHENTICATED.
 */
import { AppError, type OperatorUser } from '@terminal-mcp/contract';
import type { BrokerContext } from './context.js';
import { raise, webProcedure } from './trpc.js';

export { operatorOf } from './operator-session.js';

export interface OperatorContext extends BrokerContext {
  /** The operator whose valid session token came with the call. */
  operator: OperatorUser;
  /** `web:<username>`: what audit rows, grant events and logs record. */
  actor: string;
}

export const operatorProcedure = webProcedure.use(({ ctx, path, next }) => {
  const operator = ctx.operator;
  if (operator === undefined) {
    ctx.deps.log.warn({ event: 'security.operator_session_refused', role: ctx.role, path, token: ctx.operatorToken === undefined ? 'absent' : 'invalid' }, 'operator session refused');
    raise(new AppError('UNAUTHENTICATED', 'sign in to the dashboard first'));
  }
  return next({ ctx: { ...ctx, operator } satisfies OperatorContext });
});
