/** The one authorization decision (policy/authority.ts), as a guard a use case calls at
 * the effect itself: right before it writes, types or spawns. Throws the refusal. */
import { AppError } from '@terminal-mcp/contract';
import { refuseEffect, type Effect, type Principal } from '../policy/authority.js';

export function requireEffect(caller: { principal: Principal }, effect: Effect): void {
  const refusal = refuseEffect(caller.principal, effect);
  if (refusal) throw new AppError(refusal.code, refusal.message, refusal.hint);
}
