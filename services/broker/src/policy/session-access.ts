/** The access fields every session summary carries (`read_allowed`, `read_granted`,
 * `input_allowed`, `input_granted`): what the config and the operator's grant admit for a
 * live session, before any per-call check. Pure: (policies, facts, grant). */
import type { SessionSummary } from '@terminal-mcp/contract';
import { decideReadAccess, type ReadPolicy } from './access.js';
import type { EffectiveGrant } from './grants.js';
import { decideInputTarget, type InputPolicy } from './input.js';

export type SessionAccessFields = Pick<SessionSummary, 'read_allowed' | 'read_granted' | 'input_allowed' | 'input_granted'>;

/** What the summary is judged on: the session's name and its active pane, if any. */
export interface SessionAccessFacts {
  readonly name: string;
  readonly activePane: { readonly inMode: boolean; readonly currentCommand: string } | null;
}

/**
 * `input_allowed` is true when the input gates that do not depend on what is sent would
 * admit input now: the global switch, deny patterns, the sensitive-name rule, readability
 * (no blind input), the input allowlist or an input grant, the guarded-command check
 * (policy/input.ts `decideInputTarget`), and copy mode. Asked for keys: sending TEXT may
 * still be refused when `input_policy.allow_send_text` is off, and every call still
 * passes the per-call checks (length, control characters, key allowlist, confirmation).
 */
export function describeSessionAccess(
  policies: { read: ReadPolicy; input: InputPolicy },
  s: SessionAccessFacts,
  grant: EffectiveGrant | null,
): SessionAccessFields {
  const readAllowed = decideReadAccess(policies.read, s.name, grant).allowed;
  const pane = s.activePane;
  const inputAllowed =
    pane !== null &&
    !pane.inMode &&
    decideInputTarget(
      policies.input,
      // tmux's foreground command only: the list does not read /proc per session; every
      // attempt checks the whole process tree.
      { sessionName: s.name, readable: readAllowed, currentCommand: pane.currentCommand, processes: { source: 'tmux', command: pane.currentCommand }, inCopyMode: pane.inMode, grant },
      'keys',
    ) === null;
  return { read_allowed: readAllowed, read_granted: grant?.read === true, input_allowed: inputAllowed, input_granted: grant?.input === true };
}
