/**
 * Self-identifying tokens split by blank cells (issue 46 A.3): a program that moves the
 * cursor forward inside a token (`ghp_AbC\e[4CdEf...`) leaves cells it never wrote, and
 * tmux draws them as blanks, so a pane capture holds `ghp_AbC    dEf...`: two words, no
 * rule matches either, and a reader joins them by eye. In a stream or a transcript the
 * escape itself is dropped before matching (sanitize.ts), so only captures need this.
 *
 * The pieces after a word that starts like one of our token prefixes (or is the start of
 * one: `gh`, `AKI`) are joined, blanks removed, and the token rules judge the join as a
 * whole token; the shortest join that is one is redacted, gaps included, with the pieces
 * after it that keep it one and look generated themselves (at most MAX_PIECES pieces). Joining words of prose could make a token-shaped run too (`ghp_ tokens
 * are created in settings` joins to 33 token characters), so the join must also look
 * generated: a digit and a letter, and both cases where the token's alphabet has them.
 * Pure; linear (one scan for candidate words, a bounded join at each).
 */

export type GapSink = (start: number, end: number, kind: string) => void;

/** One token rule as the join is judged by it. */
export interface GapSplitRule {
  readonly kind: string;
  /** The literal starts of this token, case as printed. */
  readonly prefixes: readonly string[];
  /** Matches the token; judged at the start of a join only (a sticky copy is made). */
  readonly pattern: RegExp;
  /** Which letters the token's alphabet has: both cases, upper only (AWS key ids), lower only (Slack). */
  readonly letters: 'mixed' | 'upper' | 'lower';
  readonly accept?: (match: string) => boolean;
}

/** Pieces joined at most, and characters a join may span. */
const MAX_PIECES = 6;
const MAX_JOIN = 600;
/** No token of ours is shorter (an AWS key id: 20): shorter joins are not judged. */
const MIN_TOKEN = 20;

/** Characters of a piece: those our token rules take (base64url, `.` for `ya29.`). */
function isPieceChar(c: number): boolean {
  return (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) || c === 0x5f || c === 0x2d || c === 0x2e;
}

const isBlank = (c: number): boolean => c === 0x20 || c === 0x09;

/** Generated-looking: a digit and a letter, and both cases when the alphabet has them. */
function looksGenerated(body: string, letters: GapSplitRule['letters']): boolean {
  const upper = /[A-Z]/.test(body);
  const lower = /[a-z]/.test(body);
  if (!/[0-9]/.test(body)) return false;
  if (letters === 'mixed') return upper && lower;
  return letters === 'upper' ? upper : lower;
}

/** The rules as the join is judged: each pattern sticky, so a join that does not start
 * with the token fails at once instead of being searched. */
export function prepareGapSplitRules(rules: readonly GapSplitRule[]): GapSplitRule[] {
  return rules.map((r) => ({ ...r, pattern: new RegExp(r.pattern.source, r.pattern.flags.replace(/[gy]/g, '') + 'y') }));
}

/**
 * The candidates' first two characters, for one regex pass over the text: a word that
 * starts with one of them is then checked against the whole prefixes.
 */
export function gapCandidatePattern(rules: readonly GapSplitRule[]): RegExp {
  const starts = [...new Set(rules.flatMap((r) => r.prefixes.map((p) => p.slice(0, 2))))];
  const escaped = starts.map((s) => s.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&'));
  return new RegExp(`(?<![A-Za-z0-9_-])(?:${escaped.join('|')})`, 'g');
}

/** Finds tokens of `rules` (prepareGapSplitRules) split by blanks in `visible`;
 * `candidates` is gapCandidatePattern(rules). */
export function findGapSplitTokens(visible: string, rules: readonly GapSplitRule[], candidates: RegExp, emit: GapSink): void {
  candidates.lastIndex = 0;
  for (let m = candidates.exec(visible); m !== null; m = candidates.exec(visible)) {
    const start = m.index;
    let i = start;
    while (i < visible.length && isPieceChar(visible.charCodeAt(i))) i += 1;
    candidates.lastIndex = Math.max(candidates.lastIndex, i);
    // Only a word that starts like a token (or is the start of one) is joined: most
    // candidates (`git`, `skip`, `as`) end here.
    const first = visible.slice(start, i);
    const fitting = rules.filter((r) => r.prefixes.some((p) => first.startsWith(p) || p.startsWith(first)));
    if (fitting.length === 0) continue;
    // The pieces from here: runs of piece characters separated by blanks, on this line.
    const pieces: [number, number][] = [[start, i]];
    while (pieces.length < MAX_PIECES && i - start < MAX_JOIN) {
      let next = i;
      while (next < visible.length && isBlank(visible.charCodeAt(next))) next += 1;
      if (next === i || next >= visible.length || !isPieceChar(visible.charCodeAt(next))) break;
      i = next;
      while (i < visible.length && isPieceChar(visible.charCodeAt(i))) i += 1;
      pieces.push([next, i]);
    }
    if (pieces.length < 2) continue;
    const joins: string[] = [];
    let joined = '';
    for (const [a, b] of pieces) joins.push((joined += visible.slice(a, b)));
    // The shortest join that is a token, then the pieces after it while the join stays
    // one and each piece looks generated itself (a digit or a capital): a plain word
    // after a split token (`... end`) is not swallowed.
    const judge = (k: number, rule: GapSplitRule): boolean => {
      const candidate = joins[k - 1]!;
      if (candidate.length < MIN_TOKEN) return false;
      rule.pattern.lastIndex = 0;
      const hit = rule.pattern.exec(candidate);
      if (hit === null || hit.index !== 0 || hit[0].length !== candidate.length) return false;
      const prefix = rule.prefixes.find((p) => candidate.startsWith(p)) ?? '';
      return looksGenerated(candidate.slice(prefix.length), rule.letters) && (rule.accept === undefined || rule.accept(candidate));
    };
    // From one piece: a whole token followed by a word keeps the word unless it looks generated.
    found: for (let k = 1; k <= pieces.length; k += 1) {
      for (const rule of fitting) {
        if (!judge(k, rule)) continue;
        let last = k;
        while (last < pieces.length && /[0-9A-Z]/.test(visible.slice(pieces[last]![0], pieces[last]![1])) && judge(last + 1, rule)) last += 1;
        if (last > 1) emit(pieces[0]![0], pieces[last - 1]![1], rule.kind);
        candidates.lastIndex = Math.max(candidates.lastIndex, pieces[last - 1]![1]);
        break found;
      }
    }
  }
}
