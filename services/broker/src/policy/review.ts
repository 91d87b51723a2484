/**
 * Whether an input needs a person's review before it is sent (input_policy.review).
 * Pure: decided on the request, the session name and the config, at the check phase of
 * the attempt (input/attempt.ts), after every gate has passed.
 *
 * `risky`:
 *  - keys other than Enter (the control keys, C-c, C-d, Escape, arrows...): they steer a
 *    program rather than answer it;
 *  - text over more than one line: several commands or a pasted script;
 *  - text whose parsed commands are risky (policy/shell-review.ts: the text as bash
 *    parses it, its words unquoted and unescaped, judged by command name and flags,
 *    redirections and substitutions; text the parser cannot read is risky), including a
 *    guarded command (input_policy.guarded_commands);
 *  - any text when the parser could not be loaded (`parse` null).
 */
import type { InputRequest } from './input.js';
import { matchesAny } from './access.js';
import { judgeGuardedCommandText } from './guarded-command-text.js';
import { shellTextRisk, type ShellParse } from './shell-review.js';

export type ReviewMode = 'off' | 'risky' | 'always';

export interface ReviewRules {
  review: ReviewMode;
  review_always_session_patterns: readonly string[];
  guarded_commands: readonly string[];
}

/** The reason a review is needed, or null when the input goes straight through. `parse`:
 * the loaded bash grammar (effects/shell-syntax/bash-parser.ts); null when it could not be
 * loaded, and then every text is risky. */
export function reviewReason(rules: ReviewRules, sessionName: string, request: InputRequest, parse: ShellParse | null): string | null {
  if (matchesAny(rules.review_always_session_patterns, sessionName)) return 'the session is listed in input_policy.review_always_session_patterns';
  if (rules.review === 'off') return null;
  if (rules.review === 'always') return 'input_policy.review is always';
  if (request.kind === 'keys') {
    const other = request.keys.filter((k) => k !== 'Enter');
    return other.length > 0 ? `keys other than Enter (${other.join(', ')})` : null;
  }
  const text = request.text.replace(/\r\n/g, '\n').replace(/\n+$/, '');
  if (text.includes('\n') || text.includes('\r')) return 'text over more than one line';
  if (parse === null) return 'the shell parser is not available, so the text cannot be judged';
  const risk = shellTextRisk(parse(text), rules.guarded_commands);
  if (risk !== null) return risk;
  // The guarded-command check terminal_run makes (policy/guarded-command-text.ts): a name it
  // cannot judge (history expansion, a brace or glob in a command name, code in an alias
  // or PROMPT_COMMAND) is risky too.
  const guarded = judgeGuardedCommandText(parse, text, rules.guarded_commands);
  if (guarded.kind === 'guarded') return `the text runs the guarded command ${guarded.command}`;
  if (guarded.kind === 'unjudged') return `the text cannot be judged: ${guarded.reason}`;
  return null;
}
