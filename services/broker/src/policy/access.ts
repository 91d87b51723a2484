/**
 * Which sessions' content may be read: the operator's whitelist of fnmatch-style
 * patterns plus the sensitive-name rule. Pure: a function of (policy, name).
 *
 * The glob matcher is our own, not a regex built from the pattern: an operator's
 * pattern is data, so it can neither inject regex syntax nor trigger catastrophic
 * backtracking. Matching is O(pattern x name) at worst (the classic "remember the
 * last star" algorithm), never exponential.
 */
import { foldLookalikes } from './text-fold.js';

/** Words that mark a session as sensitive: a substring of the name's normalised form
 * (`sensitiveNameForm`: case, width, invisible characters, lookalikes and separators do
 * not hide them). */
export const SENSITIVE_NAME_WORDS = ['root', 'ssh', 'password', 'secret', 'database'] as const;

type GlobToken =
  | { readonly kind: 'literal'; readonly char: string }
  | { readonly kind: 'any' }
  | { readonly kind: 'star' }
  | { readonly kind: 'class'; readonly negated: boolean; readonly chars: ReadonlySet<string>; readonly ranges: readonly (readonly [number, number])[] };

/**
 * Parse a pattern the way Python's fnmatch does: `*`, `?`, `[abc]`, `[a-z]`, `[!abc]`;
 * `]` right after `[` or `[!` is a member; `-` first or last is a member; `^` is
 * literal; a `[` with no closing `]` is a literal `[`. Works on code points, so `?`
 * matches one character of a non-ASCII name.
 */
function parseGlob(pattern: string): GlobToken[] {
  const chars = Array.from(pattern);
  const tokens: GlobToken[] = [];
  let i = 0;
  while (i < chars.length) {
    const c = chars[i] as string;
    if (c === '*') {
      // Consecutive stars are one star; collapsing them keeps matching linear in practice.
      if (tokens.at(-1)?.kind !== 'star') tokens.push({ kind: 'star' });
      i += 1;
    } else if (c === '?') {
      tokens.push({ kind: 'any' });
      i += 1;
    } else if (c === '[') {
      const parsed = parseClass(chars, i);
      if (parsed === null) {
        tokens.push({ kind: 'literal', char: '[' });
        i += 1;
      } else {
        tokens.push(parsed.token);
        i = parsed.next;
      }
    } else {
      tokens.push({ kind: 'literal', char: c });
      i += 1;
    }
  }
  return tokens;
}

/** Parsed patterns, by pattern: every list checks each session against the same few
 * configured patterns (allow, deny, guarded commands). Bounded: cleared when full. The
 * token arrays are frozen, so no caller can change what the next one matches. */
// eslint-disable-next-line terminal-mcp/no-module-state -- a bounded memo of a pure function (parseGlob), keyed by the exact pattern: unobservable
const parsedGlobs = new Map<string, readonly GlobToken[]>();
const PARSED_GLOBS_MAX = 1024;
function globTokens(pattern: string): readonly GlobToken[] {
  let tokens = parsedGlobs.get(pattern);
  if (tokens === undefined) {
    if (parsedGlobs.size >= PARSED_GLOBS_MAX) parsedGlobs.clear();
    tokens = Object.freeze(parseGlob(pattern));
    parsedGlobs.set(pattern, tokens);
  }
  return tokens;
}

function parseClass(chars: readonly string[], open: number): { token: GlobToken; next: number } | null {
  let j = open + 1;
  let negated = false;
  if (chars[j] === '!') {
    negated = true;
    j += 1;
  }
  const bodyStart = j;
  // A `]` right after the opening is a member, not the end.
  if (chars[j] === ']') j += 1;
  while (j < chars.length && chars[j] !== ']') j += 1;
  if (j >= chars.length) return null;
  const body = chars.slice(bodyStart, j);
  const set = new Set<string>();
  const ranges: [number, number][] = [];
  let k = 0;
  while (k < body.length) {
    const lo = body[k] as string;
    const hi = body[k + 2];
    if (body[k + 1] === '-' && hi !== undefined) {
      // An inverted range such as [z-a] matches nothing, as in fnmatch.
      ranges.push([lo.codePointAt(0) as number, hi.codePointAt(0) as number]);
      k += 3;
    } else {
      set.add(lo);
      k += 1;
    }
  }
  return { token: { kind: 'class', negated, chars: set, ranges }, next: j + 1 };
}

function tokenMatches(token: GlobToken, char: string): boolean {
  switch (token.kind) {
    case 'literal':
      return token.char === char;
    case 'any':
      return true;
    case 'star':
      return false;
    case 'class': {
      const code = char.codePointAt(0) as number;
      const member = token.chars.has(char) || token.ranges.some(([lo, hi]) => lo <= code && code <= hi);
      return member !== token.negated;
    }
  }
}

/**
 * fnmatch-style, whole-string, case-sensitive match of `name` against `pattern`.
 * Every character other than `*`, `?` and a well-formed `[...]` is literal.
 */
export function matchesGlob(pattern: string, name: string): boolean {
  const tokens = globTokens(pattern);
  const text = Array.from(name);
  let t = 0; // position in tokens
  let s = 0; // position in text
  let starToken = -1; // index of the last star seen
  let starText = 0; // text position that star is currently assumed to end at
  while (s < text.length) {
    const token = tokens[t];
    if (token !== undefined && token.kind === 'star') {
      starToken = t;
      starText = s;
      t += 1;
    } else if (token !== undefined && tokenMatches(token, text[s] as string)) {
      t += 1;
      s += 1;
    } else if (starToken >= 0) {
      // Let the last star swallow one more character and retry after it.
      t = starToken + 1;
      starText += 1;
      s = starText;
    } else {
      return false;
    }
  }
  while (tokens[t]?.kind === 'star') t += 1;
  return t === tokens.length;
}

/** True when any of `patterns` matches `name`. The building block for allow and deny lists. */
export function matchesAny(patterns: readonly string[], name: string): boolean {
  return patterns.some((pattern) => matchesGlob(pattern, name));
}

/**
 * The form a name is tested in for sensitive words: folded (text-fold.ts: NFKC, so
 * fullwidth `ｒｏｏｔ` and mathematical `𝐫𝐨𝐨𝐭` become `root`; default-ignorable code points
 * dropped; lower case; Cyrillic/Greek lookalikes mapped to Latin), then everything that is
 * not a letter or a digit dropped, so separators cannot split a word (`r-o-o-t`, `s_s_h`,
 * `pass word`). Dropping separators also joins neighbours: `class-h` reads as `classh`
 * and so contains `ssh` — a false positive we accept, since a sensitive name only needs a
 * literal allow entry.
 */
export function sensitiveNameForm(name: string): string {
  return foldLookalikes(name).replace(/[^\p{L}\p{N}]/gu, '');
}

/** Names already judged (NFKC and three Unicode regexes per name are most of a list's
 * access checks), by name. Bounded: cleared when full. */
// eslint-disable-next-line terminal-mcp/no-module-state -- a bounded memo of a pure function (the sensitive-word test), keyed by the exact name: unobservable
const sensitiveByName = new Map<string, boolean>();
const SENSITIVE_BY_NAME_MAX = 4096;

/** True when the name contains a sensitive word once normalised (see sensitiveNameForm). */
export function isSensitiveName(name: string): boolean {
  let sensitive = sensitiveByName.get(name);
  if (sensitive === undefined) {
    const form = sensitiveNameForm(name);
    sensitive = SENSITIVE_NAME_WORDS.some((word) => form.includes(word));
    if (sensitiveByName.size >= SENSITIVE_BY_NAME_MAX) sensitiveByName.clear();
    sensitiveByName.set(name, sensitive);
  }
  return sensitive;
}

export interface ReadPolicy {
  readonly terminalRead: boolean;
  readonly allowedPatterns: readonly string[];
}

export type ReadAccessReason = 'READ_DISABLED' | 'NOT_ALLOWED' | 'SENSITIVE_NEEDS_LITERAL' | 'PATTERN' | 'LITERAL' | 'GRANT';

export interface ReadAccessDecision {
  readonly allowed: boolean;
  readonly reason: ReadAccessReason;
}

/**
 * May the content of session `name` be read? Only with terminal_read on and a
 * whitelist entry for it. A sensitive name needs an entry equal to the name itself:
 * no glob admits it, not even `*`, so widening a pattern never exposes a root or ssh
 * session by accident. A literal entry is compared before glob matching, so a name
 * containing glob characters (`build[1]`) can still be listed exactly.
 *
 * `grant` is the operator's dashboard grant for this session, already checked for
 * identity and expiry (policy/grants.ts `effectiveGrant`): a read grant admits a name the
 * whitelist does not, but never a sensitive name and never with terminal_read off.
 */
export function decideReadAccess(policy: ReadPolicy, name: string, grant?: { readonly read: boolean } | null): ReadAccessDecision {
  if (!policy.terminalRead) return { allowed: false, reason: 'READ_DISABLED' };
  if (policy.allowedPatterns.includes(name)) return { allowed: true, reason: 'LITERAL' };
  const matched = matchesAny(policy.allowedPatterns, name);
  const sensitive = isSensitiveName(name);
  if (matched && !sensitive) return { allowed: true, reason: 'PATTERN' };
  if (grant?.read === true && !sensitive) return { allowed: true, reason: 'GRANT' };
  return matched ? { allowed: false, reason: 'SENSITIVE_NEEDS_LITERAL' } : { allowed: false, reason: 'NOT_ALLOWED' };
}
