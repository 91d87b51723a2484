/**
 * Partial lines (issue 25): a token still being printed (or typed) shows only its start,
 * which no rule recognises yet: `ghp_abc...` with 26 of its 40 characters. The trailing
 * fragment of an unfinished line is held back — replaced by a marker — when it could be
 * the start of a token: it begins like a known token prefix (ours or a maintained rule's
 * keyword), it follows a secret's key or flag (`password=`, `--token `, `Bearer `, a URL's
 * `user:`), it is a long mixed run of token characters, or it spells the start of a
 * secret the host-secret index knows (known-secrets.ts). It shows once the line ends
 * (the whole line is then redacted as usual) or grows out of that shape. Pure.
 */
import { knownSecrets } from './known-secrets.js';
import { GITLEAKS_RULES } from './secret-rules/gitleaks.generated.js';

export const PARTIAL_TOKEN_MARKER = '[REDACTED:partial_token]';

/** Our token prefixes (redact.ts TOKEN_RULES) and the maintained keywords that look like
 * token prefixes (with a digit or `_`, `-`, `.`: `ghp_`, `xoxb-`, `dp.pt.`), lower case. */
const TOKEN_PREFIXES: readonly string[] = [
  ...new Set([
    'tmcp_', 'sk-', 'ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_', 'github_pat_', 'glpat-', 'xox', 'xapp-', 'aiza', 'ya29.', 'sk_live_', 'sk_test_', 'rk_live_', 'npm_', 'hf_', 'akia', 'asia', 'eyj', 'hvs.', 'sg.', 'pypi-', 'age-secret-key-1',
    ...GITLEAKS_RULES.rules.flatMap((r) => r.keywords).filter((k) => k.length >= 3 && /[0-9_.-]/.test(k)),
  ]),
];

const TRAILING_RUN = /[A-Za-z0-9_\-+/=.~%]+$/;
const SECRET_CONTEXT =
  /(?:(?:pass(?:word|wd|phrase)?|pwd|token|secret|api[_-]?key|auth|credential)[A-Za-z0-9_.-]*["']?[ \t]*(?::=|=>|=|:)[ \t]*["']?|--?[A-Za-z0-9-]*(?:password|passwd|token|secret|key|auth)[ =]["']?|\b(?:bearer|basic|token)[ \t]+|:\/\/[^\s/@:]*:|-p|-a[ \t]+|pass:)$/i;
const MIN_UNKNOWN_RUN = 16;

function couldStartToken(run: string, before: string): boolean {
  if (SECRET_CONTEXT.test(before)) return true;
  const lower = run.toLowerCase();
  for (const prefix of TOKEN_PREFIXES) {
    if (lower.startsWith(prefix) || (lower.length >= 3 && prefix.startsWith(lower))) return true;
  }
  return run.length >= MIN_UNKNOWN_RUN && /[A-Z]/.test(run) && /[a-z]/.test(run) && /[0-9]/.test(run);
}

/** `line` (visible text, unfinished) with its trailing fragment held back when it could
 * be the start of a token. */
export function holdBackPartialToken(line: string): string {
  const m = TRAILING_RUN.exec(line);
  if (m !== null && couldStartToken(m[0], line.slice(0, m.index))) return `${line.slice(0, m.index)}${PARTIAL_TOKEN_MARKER}`;
  // A known secret printed slowly (issue 46 A.6): its first characters, fewer than the
  // index's window, would show until the window is complete.
  const known = knownSecrets()?.prefixStart?.(line) ?? -1;
  return known >= 0 ? `${line.slice(0, known)}${PARTIAL_TOKEN_MARKER}` : line;
}
