/**
 * Whether a caller's regular expression may be handed to `git grep -E`. Pure.
 *
 * `git grep -E` compiles with the C library's POSIX regex engine (glibc here), which
 * simulates the automaton instead of backtracking, so `(a+)+$` is never exponential.
 * (It can still be quadratic in the line length, which only the caller's timeout
 * bounds.) Two features are worse and are refused:
 * - back-references (`\1`..`\9`): glibc matches them by backtracking, exponentially;
 * - large or nested bounded repetition (`(a{1,200}){1,200}`): glibc expands each
 *   repetition into automaton states, so memory and time grow with the product.
 * The search still runs under a timeout.
 */

export type SearchPatternDecision = { readonly ok: true } | { readonly ok: false; readonly reason: string };

/** Largest count in one `{m,n}`. */
export const MAX_REPEAT_BOUND = 100;
/** Largest estimated size of the pattern once bounded repetitions are expanded. */
export const MAX_EXPANDED_SIZE = 5000;

interface Frame {
  /** Size of the alternatives already closed by `|` in this group (upper bound: summed). */
  closed: number;
  /** Size of the current alternative. */
  current: number;
  /** Size of the last atom, which a following quantifier multiplies. */
  last: number;
}

/** Length of a bracket expression starting at `open` (`[`), or -1 when unterminated. */
function bracketLength(pattern: string, open: number): number {
  let i = open + 1;
  if (pattern[i] === '^') i += 1;
  if (pattern[i] === ']') i += 1; // a leading ] is a member
  while (i < pattern.length) {
    if (pattern[i] === '[' && (pattern[i + 1] === ':' || pattern[i + 1] === '.' || pattern[i + 1] === '=')) {
      const close = pattern.indexOf(`${pattern[i + 1]}]`, i + 2);
      if (close < 0) return -1;
      i = close + 2;
    } else if (pattern[i] === ']') {
      return i - open + 1;
    } else {
      i += 1;
    }
  }
  return -1;
}

export function checkSearchRegex(pattern: string): SearchPatternDecision {
  if (/[\x00-\x08\x0a-\x1f\x7f]/.test(pattern)) return { ok: false, reason: 'the pattern contains control characters' };
  const stack: Frame[] = [{ closed: 0, current: 0, last: 0 }];
  let i = 0;
  while (i < pattern.length) {
    const frame = stack[stack.length - 1]!;
    const c = pattern[i]!;
    if (c === '\\') {
      const next = pattern[i + 1];
      if (next !== undefined && next >= '1' && next <= '9') {
        return { ok: false, reason: 'back-references (\\1..\\9) are not supported' };
      }
      frame.current += 1;
      frame.last = 1;
      i += 2;
    } else if (c === '[') {
      const len = bracketLength(pattern, i);
      if (len < 0) return { ok: false, reason: 'unterminated [ bracket expression' };
      frame.current += 1;
      frame.last = 1;
      i += len;
    } else if (c === '(') {
      stack.push({ closed: 0, current: 0, last: 0 });
      i += 1;
    } else if (c === ')') {
      if (stack.length === 1) return { ok: false, reason: 'unbalanced )' };
      stack.pop();
      const size = Math.max(1, frame.closed + frame.current);
      const parent = stack[stack.length - 1]!;
      parent.current += size;
      parent.last = size;
      i += 1;
    } else if (c === '|') {
      frame.closed += frame.current;
      frame.current = 0;
      frame.last = 0;
      i += 1;
    } else if (c === '{') {
      const m = /^\{(\d{1,6})(,(\d{0,6}))?\}/.exec(pattern.slice(i));
      if (!m) {
        frame.current += 1; // a literal brace
        frame.last = 1;
        i += 1;
        continue;
      }
      const lo = Number(m[1]);
      const hi = m[2] === undefined ? lo : m[3] === '' ? lo + 1 : Number(m[3]);
      if (lo > MAX_REPEAT_BOUND || hi > MAX_REPEAT_BOUND) {
        return { ok: false, reason: `repetition counts above ${MAX_REPEAT_BOUND} are not supported` };
      }
      // The repeated atom now stands for `hi` copies of itself.
      frame.current += frame.last * (Math.max(hi, 1) - 1);
      frame.last *= Math.max(hi, 1);
      i += m[0].length;
    } else {
      frame.current += 1;
      frame.last = c === '*' || c === '+' || c === '?' ? frame.last : 1;
      i += 1;
    }
    const total = stack.reduce((sum, f) => sum + f.closed + f.current, 0);
    if (total > MAX_EXPANDED_SIZE) return { ok: false, reason: 'the pattern is too complex (bounded repetitions expand too far)' };
  }
  if (stack.length !== 1) return { ok: false, reason: 'unbalanced (' };
  return { ok: true };
}
