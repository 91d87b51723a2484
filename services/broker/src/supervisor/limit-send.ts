/**
 * The send a usage-limit resume types through (limit-parks.ts): the input tools' own
 * guarded, audited path (input/send.ts sendText), as the broker's supervisor identity, pinned
 * to the pane the park recorded. Every input gate applies unchanged (the session's input
 * permission, the foreground program check at the last instant, review mode, the pane lock)
 * and the input audit records the attempt under `supervisor_resume_after_limit`.
 */
import { principalOf } from '../policy/authority.js';
import type { InputCaller } from '../input/input-deps.js';
import { sendText } from '../input/send.js';
import { refOf } from './evaluator.js';
import type { LimitResumeSend } from './limit-parks.js';

/** Who a resume is recorded for in the input audit. */
export const LIMIT_RESUME_ACTOR = 'broker:supervisor';
export const LIMIT_RESUME_TOOL = 'supervisor_resume_after_limit';

export function limitResumeSend(deps: InputCaller['deps']): LimitResumeSend {
  // The broker's own principal: it acts for the operator's configuration, on no client's behalf.
  const caller: InputCaller = { role: 'gateway', actor: LIMIT_RESUME_ACTOR, principal: principalOf('gateway', 'socket', LIMIT_RESUME_ACTOR), deps };
  return (watch, text, pinned) => sendText(caller, { tool: LIMIT_RESUME_TOOL, target: refOf(watch), text, enter: true, dryRun: false, pinned });
}
