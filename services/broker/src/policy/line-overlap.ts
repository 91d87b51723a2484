/**
 * Where new lines start in a later look at the same pane. Pure (no I/O).
 *
 * Both recorders meet the same question: a transcript ends with some lines, a capture of
 * the pane shows lines too, and only what follows the already written ones is new.
 * `overlap` serves the pipe recorder's resume (the screen against the transcript's last
 * lines); `resumeIndex` serves a node's polling recorder, which looks at a pane every few
 * seconds and must find, in a capture that starts somewhat before where it stopped, the
 * end of what it wrote.
 */

/** The longest run of lines that ends `before` and starts `after`. */
export function overlap(before: readonly string[], after: readonly string[]): number {
  for (let k = Math.min(before.length, after.length); k > 0; k -= 1) {
    let same = true;
    for (let i = 0; i < k && same; i += 1) same = before[before.length - k + i] === after[i];
    if (same) return k;
  }
  return 0;
}

/** Lines of the written tail a match must cover (fewer only when fewer were written):
 * one line alone (a blank line, a prompt) repeats too often to place anything. */
export const MATCH_LINES = 8;

/**
 * The index in `captured` of the first line not written yet: right after a run of
 * `captured` that equals the last lines of `written` (MATCH_LINES of them, or all when
 * fewer). Output that repeats itself matches in several places; the one closest to
 * `expected` (where the pane's row counts put it) wins, the later one on a tie, so a line
 * is rather missed than written twice. Null: no such run, even without the last written
 * lines (the capture does not reach back to what was written: more output scrolled away
 * than the history held, or the history was cleared). Nothing written yet: placed by
 * `expected` alone (nothing to compare; a loss cannot be seen).
 */
export function resumeIndex(written: readonly string[], captured: readonly string[], expected: number): number | null {
  // The last lines written may have been redrawn since (a progress bar moving the cursor
  // up): the lines before them still place the rest, and the redrawn ones come again as
  // they look now.
  // Never with fewer than MATCH_LINES (a blank line alone is found almost anywhere, and
  // would hide a real loss).
  const need = Math.min(written.length, MATCH_LINES);
  for (let redrawn = 0; redrawn <= written.length - need; redrawn += 1) {
    const at = runEnd(written.slice(0, written.length - redrawn), captured, expected - redrawn);
    if (at !== null) return at;
  }
  return null;
}

/** resumeIndex for exactly these written lines. */
function runEnd(written: readonly string[], captured: readonly string[], expected: number): number | null {
  const need = Math.min(written.length, MATCH_LINES);
  if (need === 0) return Math.max(0, Math.min(captured.length, expected));
  const tail = written.slice(-need);
  let best: number | null = null;
  for (let end = need; end <= captured.length; end += 1) {
    let same = true;
    for (let i = 0; i < need && same; i += 1) same = captured[end - need + i] === tail[i];
    if (!same) continue;
    if (best === null || Math.abs(end - expected) <= Math.abs(best - expected)) best = end;
  }
  return best;
}
