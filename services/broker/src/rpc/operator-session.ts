/** The signed-in operator behind a web.sock call: the session token the dashboard's
 * server sends (OPERATOR_SESSION_HEADER) checked against webauth.db. Absent, forged and
 * expired tokens, and an account that must still change its first-start password, are
 * no operator. The base of every procedure (trpc.ts) resolves it once per call, so the
 * effect check and the operator procedures see the same principal. */
import type { OperatorUser } from '@terminal-mcp/contract';
import { principalOf } from '../policy/authority.js';
import { validateSessionToken } from '../webauth/sessions.js';
import type { BrokerContext } from './context.js';

/** The operator behind the context's token, or null. */
export function operatorOf(ctx: BrokerContext): OperatorUser | null {
  if (ctx.operator !== undefined) return ctx.operator;
  if (ctx.operatorToken === undefined) return null;
  const valid = validateSessionToken(ctx.deps.webauth, ctx.operatorToken);
  if (!valid || valid.user.mustChangePassword) return null;
  return { id: valid.user.id, username: valid.user.username, mustChangePassword: false };
}

/** The context acting as its operator (`web:<username>`, every effect) when a valid
 * session token came with a web.sock call; else the context as it is. */
export function withOperator(ctx: BrokerContext): BrokerContext {
  if (ctx.role !== 'web' || ctx.operatorToken === undefined || ctx.principal.kind === 'operator') return ctx;
  const operator = operatorOf(ctx);
  if (operator === null) return ctx;
  const principal = principalOf('web', 'operator', `web:${operator.username}`);
  return { ...ctx, operator, principal, actor: principal.actor };
}
