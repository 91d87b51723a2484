/**
 * Whether an input needs a person's review before it is sent (input_policy.review).
 * Pure: decided on the request, the session name and the config, at the check phase of
 * the attempt (input/attempt.ts), after every gate has passed.
 *
 * `risky` reuses rules that exist elsewhere rather than a new list of its own:
 *  - keys other than Enter (the control keys, C-c, C-d, Escape, arrows...): they steer a
 *    program rather than answer it;
 *  - text over more than one line: several commands or a pasted script;
 *  - text naming a guarded command (input_policy.guarded_commands: ssh, sudo, kubectl,
 *    psql...) or a destructive command word (DESTRUCTIVE_WORDS) as a word of its own.
 */
import type { InputRequest } from './input.js';
import { matchesAny } from './access.js';

export type ReviewMode = 'off' | 'risky' | 'always';

/** Command words that destroy data or stop a machine, beyond the guarded commands. */
export const DESTRUCTIVE_WORDS: readonly string[] = [
  'rm', 'rmdir', 'dd', 'mkfs', 'shred', 'truncate', 'wipefs', 'fdisk', 'parted',
  'shutdown', 'reboot', 'halt', 'poweroff', 'kill', 'killall', 'pkill',
  'chmod', 'chown', 'mv', 'drop', 'delete', 'terraform', 'helm',
];

export interface ReviewRules {
  review: ReviewMode;
  review_always_session_patterns: readonly string[];
  guarded_commands: readonly string[];
}

/** The reason a review is needed, or null when the input goes straight through. */
export function reviewReason(rules: ReviewRules, sessionName: string, request: InputRequest): string | null {
  if (matchesAny(rules.review_always_session_patterns, sessionName)) return 'the session is listed in input_policy.review_always_session_patterns';
  if (rules.review === 'off') return null;
  if (rules.review === 'always') return 'input_policy.review is always';
  if (request.kind === 'keys') {
    const other = request.keys.filter((k) => k !== 'Enter');
    return other.length > 0 ? `keys other than Enter (${other.join(', ')})` : null;
  }
  const text = request.text.replace(/\r\n/g, '\n').replace(/\n+$/, '');
  if (text.includes('\n') || text.includes('\r')) return 'text over more than one line';
  const words = new Set(text.toLowerCase().split(/[^a-z0-9_.-]+/).filter(Boolean));
  const guarded = rules.guarded_commands.find((c) => words.has(c.toLowerCase()));
  if (guarded) return `the text names the guarded command ${guarded}`;
  const destructive = DESTRUCTIVE_WORDS.find((w) => words.has(w));
  if (destructive) return `the text names the destructive command ${destructive}`;
  return null;
}
