/**
 * Cutting a window of rows out of a pane AFTER redacting, so the caller's choice of rows
 * cannot sidestep redaction. Pure.
 *
 * A caller names physical rows (tmux numbering: 0 is the top of the visible screen,
 * negative rows are history). Redacting only the rows asked for lets a caller read a
 * secret in pieces: the rows strictly inside a key block carry no BEGIN/END marker, and
 * one row of a soft-wrapped token is only part of it. So the reader captures the window
 * plus CONTEXT_ROWS above and below with `-J` (wrapped rows joined into logical lines),
 * redacts that whole text, and returns the logical lines that touch the window, WHOLE.
 * Which physical rows a logical line occupies follows from its display width and the pane
 * width, counted up from the capture's bottom row (known: tmux clamps it to the screen).
 * When the first (or last) captured line is itself in the window, it may have been cut by
 * the capture's edge (a line longer than CONTEXT_ROWS rows): `needsWhole` says to capture
 * the whole history and cut again.
 *
 * Everything returned comes from redacted text; a misjudged width (an unusual wide
 * character) can shift which lines are returned by a row, never what they contain.
 */
import { holdBackPartialToken } from './partial-token.js';
import { REDACTION_MARKER, redactSecrets } from './redact.js';
import { stripTerminalControls } from './sanitize.js';

/** Rows captured above and below the window. Key bodies are recognised without their
 * markers (two body lines, or one at an edge, suffice), so the context only has to hold
 * the rest of a logical line that wraps into the window and the neighbours of a block's
 * short last line; a longer line triggers the whole-history capture (`needsWhole`).
 * Measured with `npm run bench`: the read path is hot, so this stays small. */
export const CONTEXT_ROWS = 32;

/** Cells a code point takes in a terminal: 0 (combining, zero-width), 1, or 2 (wide). */
function cellWidth(c: number): number {
  if (c < 0x300) return 1;
  if (
    (c >= 0x300 && c <= 0x36f) ||
    (c >= 0x200b && c <= 0x200f) ||
    (c >= 0x2060 && c <= 0x2064) ||
    (c >= 0xfe00 && c <= 0xfe0f) ||
    c === 0xfeff ||
    (c >= 0x1ab0 && c <= 0x1aff) ||
    (c >= 0x20d0 && c <= 0x20ff) ||
    (c >= 0xfe20 && c <= 0xfe2f)
  ) {
    return 0;
  }
  if (
    (c >= 0x1100 && c <= 0x115f) ||
    (c >= 0x2e80 && c <= 0x303e) ||
    (c >= 0x3041 && c <= 0x33ff) ||
    (c >= 0x3400 && c <= 0x4dbf) ||
    (c >= 0x4e00 && c <= 0x9fff) ||
    (c >= 0xa000 && c <= 0xa4cf) ||
    (c >= 0xac00 && c <= 0xd7a3) ||
    (c >= 0xf900 && c <= 0xfaff) ||
    (c >= 0xfe30 && c <= 0xfe4f) ||
    (c >= 0xff00 && c <= 0xff60) ||
    (c >= 0xffe0 && c <= 0xffe6) ||
    (c >= 0x1f300 && c <= 0x1f64f) ||
    (c >= 0x1f900 && c <= 0x1f9ff) ||
    (c >= 0x20000 && c <= 0x3fffd)
  ) {
    return 2;
  }
  return 1;
}

/** Display width of visible text (no control sequences). */
export function displayWidth(visible: string): number {
  let narrow = true;
  for (let i = 0; i < visible.length && narrow; i += 1) narrow = visible.charCodeAt(i) < 0x300;
  if (narrow) return visible.length;
  let width = 0;
  for (const ch of visible) width += cellWidth(ch.codePointAt(0) as number);
  return width;
}

/** Rows a logical line (visible text) takes in a pane `width` cells wide. */
export function rowsOf(visible: string, width: number): number {
  return Math.max(1, Math.ceil(displayWidth(visible) / Math.max(1, width)));
}

export interface PaneWindowRequest {
  /** Pane width in cells. */
  width: number;
  /** First and last physical row wanted (tmux numbering). */
  start: number;
  end: number;
  /** Physical row of the capture's last line (the capture's `-E`, clamped to the screen). */
  bottomRow: number;
  /** The capture began at the start of history (`-S -`): its first line is whole. */
  fromHistoryStart: boolean;
  /** The capture ended at the bottom of the screen: its last line is whole. */
  toScreenBottom: boolean;
  /** The capture kept escape sequences; they are kept in the result (outside secrets). */
  escapes: boolean;
}

export interface PaneWindow {
  /** Redacted logical lines touching the window, whole, top to bottom. */
  lines: string[];
  /** Rows of the first line above `start` (> 0 when it straddles the window's top). */
  rowsAboveStart: number;
  /** `[REDACTED:` markers in `lines`. */
  redactions: number;
  /** The markers redaction added to each line of `lines`, so a caller that returns fewer
   * lines counts only theirs. */
  lineRedactions: number[];
  /** The capture's edge may have cut a line in the window: capture everything and cut again. */
  needsWhole: boolean;
}

const MARKER = REDACTION_MARKER;

/** Markers redaction added per line (a marker already in the pane's text is not counted). */
function markersAdded(lines: readonly string[], originals: readonly string[]): number[] {
  return lines.map((line, i) =>
    line === originals[i] ? 0 : Math.max(0, (line.match(MARKER)?.length ?? 0) - ((originals[i] as string).match(MARKER)?.length ?? 0)),
  );
}

/** Redact a capture as one text and cut the logical lines touching rows `start`..`end`. */
export function cutPaneWindow(captured: string, request: PaneWindowRequest): PaneWindow {
  const text = request.escapes ? captured : stripTerminalControls(captured);
  const originals = text.split('\n');
  const redacted = redactSecrets(text, { keepLines: true }).text.split('\n');
  // The pane's last written line may be unfinished (a token still being printed or
  // typed): its trailing fragment is held back when it could start a token.
  if (request.toScreenBottom) {
    let last = redacted.length - 1;
    while (last >= 0 && (redacted[last] as string).trim() === '') last -= 1;
    if (last >= 0) redacted[last] = holdBackPartialToken(redacted[last] as string);
  }
  // Physical rows of each logical line, counted up from the capture's bottom row.
  let rowEnd = request.bottomRow;
  let first = -1;
  let last = -1;
  let rowsAboveStart = 0;
  for (let i = originals.length - 1; i >= 0; i -= 1) {
    const line = originals[i] as string;
    const rows = rowsOf(request.escapes ? stripTerminalControls(line) : line, request.width);
    const rowStart = rowEnd - rows + 1;
    if (rowEnd >= request.start && rowStart <= request.end) {
      if (last < 0) last = i;
      first = i;
      rowsAboveStart = Math.max(0, request.start - rowStart);
    }
    if (rowStart <= request.start) break;
    rowEnd = rowStart - 1;
  }
  if (first < 0) return { lines: [], rowsAboveStart: 0, redactions: 0, lineRedactions: [], needsWhole: false };
  const lines = redacted.slice(first, last + 1);
  const needsWhole = (first === 0 && !request.fromHistoryStart) || (last === originals.length - 1 && !request.toScreenBottom);
  const lineRedactions = markersAdded(lines, originals.slice(first, last + 1));
  return { lines, rowsAboveStart, redactions: lineRedactions.reduce((a, b) => a + b, 0), lineRedactions, needsWhole };
}

/** The capture that serves rows `start`..`end` with context, given the pane's current
 * history size and height: tmux `-S`/`-E` arguments and what they mean for the cut. */
export function planPaneCapture(
  pane: { height: number; historySize: number },
  start: number,
  end: number,
  whole = false,
): { start: number | '-'; end: number | '-'; bottomRow: number; fromHistoryStart: boolean; toScreenBottom: boolean } {
  const bottom = Math.max(0, pane.height - 1);
  const top = start - CONTEXT_ROWS;
  const below = end + CONTEXT_ROWS;
  const fromHistoryStart = whole || top <= -pane.historySize;
  const toScreenBottom = whole || below >= bottom;
  return {
    start: fromHistoryStart ? '-' : top,
    end: toScreenBottom ? '-' : below,
    bottomRow: toScreenBottom ? bottom : below,
    fromHistoryStart,
    toScreenBottom,
  };
}
