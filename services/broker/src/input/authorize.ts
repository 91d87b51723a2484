/**
 * THE input authorization: may this caller type this request into this pane, now? One
 * function, called by the input attempt (attempt.ts) at the moment of delivery — before
 * the target is resolved, on the resolved target, and again under the pane's lease on
 * facts re-read from tmux — so every path that types (send text, keys, task, bound text,
 * project dispatch, the supervisor's send, the dashboard, anything added later) passes
 * the same checks in the same order:
 *
 *  1. the caller's principal may cause input at all (policy/authority.ts: the socket's
 *     role, the OAuth scopes, the operator session), else INPUT_NOT_ALLOWED (or
 *     UNAUTHENTICATED for a credential that no longer verifies);
 *     The dashboard's secret entry (kind `secret`) must also come from a signed-in
 *     operator on web.sock who re-authenticated within minutes (authorizeSecretEntry);
 *     only then does the policy let it past the guarded-command gate;
 *  2. the operator's policy on the pane (access/gate.ts `decideInput`): the input switch,
 *     the binding's flag, allow/deny patterns, sensitive names, grants, guarded and
 *     foreground commands, copy mode, text and key rules.
 *
 * Review (the supervisor's approval of a queued prompt) is checked by the supervisor
 * before it calls the attempt, and the approval is written to the attempt's audit row.
 */
import { AppError, readAppErrorData } from '@terminal-mcp/contract';
import type { AllowedDecision } from '../access/gate.js';
import { requireEffect } from '../access/require-effect.js';
import type { ResolvedTarget, TargetRef } from '../access/target.js';
import { refuseSecretEntry } from '../policy/authority.js';
import type { PaneProcessFacts } from '../policy/foreground.js';
import type { InputRequest } from '../policy/input.js';
import type { InputCaller } from './input-deps.js';
import { routeInput } from './node-route.js';
import { recordRejectedInputCall } from './rejected-call.js';

/** Step 1 alone: whether the caller may type anywhere. Throws the refusal. */
export function authorizeInputCaller(caller: Pick<InputCaller, 'principal'>): void {
  requireEffect(caller, 'input');
}

/** Steps 1 and 2 on a resolved target and the pane's process tree read now. Throws the
 * refusal; returns what to deliver. */
export function authorizeInput(caller: InputCaller, target: ResolvedTarget, processes: PaneProcessFacts, request: InputRequest): AllowedDecision {
  authorizeInputCaller(caller);
  if (request.kind === 'secret') authorizeSecretEntry(caller, request.reauthenticatedAt);
  return caller.deps.access.decideInput(target, processes, request);
}

/** The operator-only exception (policy/authority.ts `refuseSecretEntry`): a secret passes
 * the guarded-command gate only for a signed-in operator on web.sock who proved their
 * password within the last few minutes; decided here, at the effect, on every check of
 * the attempt (on the resolved target and again under the lease). */
function authorizeSecretEntry(caller: Pick<InputCaller, 'principal'>, reauthenticatedAt: number | null): void {
  const refusal = refuseSecretEntry(caller.principal, reauthenticatedAt, Date.now());
  if (refusal) throw new AppError(refusal.code, refusal.message, refusal.hint);
}

/**
 * The part of the authorization that needs no tmux facts (the caller, then the gates on
 * the bare name: the input switch, the binding's flag, deny patterns, sensitive names),
 * for a path that must change something of its own before it can deliver (the
 * supervisor's send claims its action first): it asks here first, so a caller who may
 * not type changes nothing. A refusal is written to the input audit as BLOCKED (no text,
 * it was not read yet) and thrown; the delivery itself still passes authorizeInput.
 */
export function preflightInput(caller: InputCaller, tool: string, target: TargetRef): void {
  try {
    authorizeInputCaller(caller);
    // A node's session is judged by the node's input rules (input/node-route.ts).
    const route = routeInput(caller, target);
    route.caller.deps.access.checkInputName(route.target, 'text');
  } catch (err) {
    const code = readAppErrorData(err)?.code ?? 'INTERNAL';
    recordRejectedInputCall(caller, `supervisor.${tool}`, target, code, tool);
    throw err;
  }
}
