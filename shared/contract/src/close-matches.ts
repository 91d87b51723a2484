/**
 * "Did you mean ...?": the candidates closest to a word a caller got wrong (an argument
 * name, a tool name, a session name). Pure and bounded: the broker calls it on a session
 * listing, the MCP edges on a tool's argument names.
 */

/** Optimal string alignment distance (Levenshtein plus adjacent transpositions). */
export function editDistance(a: string, b: string): number {
  if (a === b) return 0;
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, (_, i) => Array.from({ length: cols }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, d[i - 2]![j - 2]! + 1);
      d[i]![j] = best;
    }
  }
  return d[rows - 1]![cols - 1]!;
}

export interface CloseMatchOptions {
  /** At most this many matches (default 3). */
  max?: number;
  /** Words longer than this are not compared (default 256): the cost is quadratic. */
  maxLength?: number;
}

/**
 * Candidates that differ from `word` by a few edits (about a third of its length, at
 * least 2), ignoring case, `-`/`_` and spacing differences, or that contain it or are
 * contained in it; closest first, then alphabetically.
 */
export function closeMatches(word: string, candidates: Iterable<string>, options: CloseMatchOptions = {}): string[] {
  const max = options.max ?? 3;
  const maxLength = options.maxLength ?? 256;
  const fold = (s: string) => s.toLowerCase().replace(/[-_\s]+/g, '');
  const w = fold(word);
  if (w.length === 0 || word.length > maxLength) return [];
  const budget = Math.max(2, Math.floor(w.length / 3));
  const scored: { name: string; score: number }[] = [];
  for (const name of new Set(candidates)) {
    if (name === word || name.length > maxLength) continue;
    const c = fold(name);
    if (c.length === 0) continue;
    // The distance is at least the length difference: skip the quadratic part when that alone rules it out.
    const distance = Math.abs(w.length - c.length) > budget ? Infinity : editDistance(w, c);
    // Containment counts only for parts long enough to mean something ("a" is in everything).
    const contained = Math.min(w.length, c.length) >= 3 && (c.includes(w) || w.includes(c));
    if (distance <= budget) scored.push({ name, score: distance });
    else if (contained) scored.push({ name, score: budget + 1 + Math.abs(c.length - w.length) });
  }
  return scored
    .sort((x, y) => x.score - y.score || x.name.localeCompare(y.name))
    .slice(0, max)
    .map((s) => s.name);
}
