/**
 * What approved_auto_continue may answer by itself: only a prompt it recognises as a
 * plain request to go on ("Continue? [y/N]", "Do you want to proceed?", "Press Enter to
 * continue"), asked on the last line of the screen, with no stop pattern (stop-patterns.ts)
 * anywhere in the lines shown above it. Anything else — another question, a prompt that
 * also names a command, a confirmation of something — waits for a person even when the
 * proposed answer is the approved template: a blocklist only stops the spellings it lists,
 * an allowlist stops everything it does not know. Compared on folded text
 * (policy/text-fold.ts), so lookalike letters and doubled spaces change nothing. Pure.
 */
import { foldForMatching } from '../policy/text-fold.js';
import { stopPatternIn, describeStop } from './stop-patterns.js';

const YES_NO = String.raw`(?:\[y/n\]|\(y/n\)|y/n|\[yes/no\]|\(yes/no\)|yes/no)`;

/** Folded last lines that are a plain "go on?". */
const RECOGNISED: readonly RegExp[] = [
  new RegExp(String.raw`^(?:do you want to |would you like to |shall (?:i|we) |ok to |okay to |ready to )?(?:continue|proceed|go on|keep going|carry on|resume)(?: anyway)?(?: with (?:the |this )?(?:next step|task|plan))? ?\?? ?${YES_NO}? ?[:?>]? ?$`),
  new RegExp(String.raw`^(?:continue|proceed) ${YES_NO} ?[:?>]? ?$`),
  /^press (?:enter|return|any key) to (?:continue|proceed|go on)\.? ?$/,
  /^(?:❯ ?)?1\. yes$/,
];

export type AutoContinueVerdict = { readonly ok: true } | { readonly ok: false; readonly reason: string };

/** May the supervisor answer `screenTail` (the last lines, bottom line last) unattended? */
export function autoContinueAllowed(screenTail: string): AutoContinueVerdict {
  const stop = stopPatternIn(screenTail, 'output');
  if (stop !== null) return { ok: false, reason: describeStop(stop) };
  const lines = screenTail.split('\n').map(foldForMatching).map((l) => l.trim()).filter((l) => l !== '');
  const last = lines.at(-1) ?? '';
  if (RECOGNISED.some((r) => r.test(last))) return { ok: true };
  return { ok: false, reason: 'the prompt on the screen is not a plain request to continue, so a person reviews this action (supervisor2_review_action or the dashboard)' };
}
