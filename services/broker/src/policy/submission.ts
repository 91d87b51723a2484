/**
 * Evidence that a typed task landed in a pane's input line, and later that the pane took
 * it. Pure: functions of captured (sanitized) screen rows. Conservative by design: a
 * receipt says SUBMIT_CONFIRMED only on positive evidence, so a check that cannot decide
 * answers "no" and the caller reports DELIVERY_UNKNOWN.
 *
 * The needle is the END of the text's last non-blank line (whitespace collapsed): that is
 * what sits next to the cursor after typing, whatever the program did with earlier lines.
 * Screens are compared before and after, so a needle that was already visible (the same
 * command run a moment ago) is not mistaken for the new text.
 */
import { stripTerminalControls } from './sanitize.js';

/** Characters of the last line the checks look for. */
export const NEEDLE_CHARS = 24;
/** Rows above the cursor row the typed text may wrap over. */
export const MAX_INPUT_ROWS = 4;
/** Some agent CLIs collapse a long paste into a placeholder such as `[Pasted text #1 +40 lines]`. */
const PASTE_PLACEHOLDER = /\[Pasted text #\d+/;

const collapse = (text: string): string => stripTerminalControls(text).replace(/\s+/g, ' ').trim();

/** The tail of the text's last non-blank line, or null when there is nothing visible to look for. */
export function landingNeedle(text: string): string | null {
  const lines = text.split('\n').map(collapse).filter((l) => l !== '');
  const last = lines.at(-1);
  if (last === undefined) return null;
  const chars = Array.from(last);
  return chars.slice(-NEEDLE_CHARS).join('');
}

/** Whether `rows` (consecutive screen rows, top first) show the needle, also when it wraps
 * over rows or an input box draws borders between them. */
export function rowsShow(rows: readonly string[], needle: string): boolean {
  const clean = rows.map(collapse);
  return clean.join('').includes(needle) || clean.join(' ').includes(needle) || rows.some((r) => PASTE_PLACEHOLDER.test(r));
}

/** The rows ending at the cursor row: `rows` are the captured rows `cursorRow - n + 1 ..
 * cursorRow`; returns the last `count`. */
export function rowsAtCursor(rows: readonly string[], count: number): string[] {
  return rows.slice(Math.max(0, rows.length - count));
}

/**
 * How many rows ending at the cursor the typed text occupies: the smallest count whose
 * rows show the needle now but did not before typing, or show it once more than before
 * (a one-letter answer `y` to `Continue? [y/N] ` whose prompt already holds a `y`).
 * Null when no such count exists.
 */
export function inputRowsAfterTyping(before: readonly string[], after: readonly string[], needle: string): number | null {
  for (let count = 1; count <= MAX_INPUT_ROWS; count += 1) {
    const now = rowsAtCursor(after, count);
    const then = rowsAtCursor(before, count);
    if (rowsShow(now, needle) && !rowsShow(then, needle)) return count;
    if (occurrences(now, needle) > occurrences(then, needle)) return count;
  }
  return null;
}

/**
 * Prompts a line editor shows while it waits for the rest of a statement: Python's
 * `... ` (and IPython's `...: `), bash's PS2 `> ` (open quote, heredoc, trailing `|`),
 * zsh's `quote> ` / `dquote> ` / `heredoc> ` / `for> ` style.
 */
const CONTINUATION_PROMPT = /^(?:\.\.\.:?|>|(?:[a-z]+ )*[a-z]+>)$/;

/**
 * After Enter: the continuation prompt the program now waits at, or null. It counts only
 * when the cursor row is that bare prompt, the row above it shows the typed text's last
 * line (the prompt follows what was typed, not some output), and the prompt differs from
 * the one before typing (a REPL whose primary prompt is `> `, like node's, came back to
 * its prompt: that is a finished statement).
 */
export function continuationPromptAfterEnter(rowsBeforeTyping: readonly string[], rowsNow: readonly string[], needle: string): string | null {
  const cursorRow = collapse(rowsNow.at(-1) ?? '');
  if (!CONTINUATION_PROMPT.test(cursorRow)) return null;
  if (collapse(rowsBeforeTyping.at(-1) ?? '') === cursorRow) return null;
  const above = rowsNow.slice(0, -1);
  for (let count = 1; count <= Math.min(MAX_INPUT_ROWS - 1, above.length); count += 1) {
    if (rowsShow(rowsAtCursor(above, count), needle)) return cursorRow;
  }
  return null;
}

/** How often the needle occurs on a screen (rows joined; a wrapped occurrence counts). */
export function occurrences(screen: readonly string[], needle: string): number {
  const text = screen.map(collapse).join('\n');
  let n = 0;
  for (let at = text.indexOf(needle); at >= 0; at = text.indexOf(needle, at + needle.length)) n += 1;
  return n;
}
