/**
 * One frame of a live terminal view: a pane's visible screen as captured by
 * `capture-pane -p -e -J` (rows of text with SGR colour escapes, wrapped rows joined),
 * turned into terminal bytes that redraw it in xterm.js. Pure.
 *
 * Security: this is the only thing the live view ever sends, never raw `%output` bytes.
 * A raw output stream is a program of cursor moves, partial redraws and erasures; a
 * secret can arrive in pieces in any order, so redacting it reliably is not possible.
 * A captured screen is the result of that program: its text is whole (wrapped rows
 * joined by -J), and `redactSecrets` (ANSI-aware) runs on it before anything else, on
 * the screen together with rows of history above it (policy/pane-window.ts): a key block
 * or a wrapped token cut by the screen's top edge is recognised and redacted whole, and
 * of a logical line that starts above the screen only its redacted tail is drawn.
 * After redaction only SGR sequences (`ESC [ ... m`) are kept; every other escape or
 * control (tmux emits none in a capture, but a frame must not be able to carry one)
 * is dropped, so a frame can set colours and nothing else: no title, no clipboard
 * (OSC 52), no mode switches, no hyperlinks.
 *
 * Rendering: reset + home + clear, rows joined by CRLF, reset, the cursor's absolute
 * position and its visibility. In a terminal of the pane's size a joined row wraps where
 * tmux wrapped it. A redaction that changes a row's length can move later text by a few
 * cells in that row; the cursor still goes to the pane's real cursor cell.
 */
import { cutPaneWindow, displayWidth, type PaneWindow } from './pane-window.js';
import { filterTerminalControls, stripTerminalControls, terminalControlLengthAt } from './sanitize.js';

export interface ScreenGeometry {
  readonly width: number;
  readonly height: number;
  readonly cursor: { readonly x: number; readonly y: number; readonly visible: boolean };
}

export interface ScreenFrame {
  /** Terminal bytes that draw the screen; write them as they are. */
  readonly data: string;
  readonly redactions: number;
}

const RESET = '\x1b[0m';
const HOME_AND_CLEAR = '\x1b[H\x1b[2J';
const SGR = /^\x1b\[[0-9;:]*m$/;

/** Removes every control sequence and control character except SGR, newline and tab. */
export function keepOnlySgr(text: string): string {
  return filterTerminalControls(text, (i, length) => (SGR.test(text.slice(i, i + length)) ? 'keep' : 'drop')).text;
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(Math.max(Math.trunc(value), min), max);
}

/** `text` without its first `cells` visible cells; SGR sequences before the cut are kept
 * so the colours in force still apply. */
function dropLeadingCells(text: string, cells: number): string {
  let kept = '';
  let dropped = 0;
  let i = 0;
  while (i < text.length && dropped < cells) {
    const length = terminalControlLengthAt(text, i);
    if (length > 0) {
      kept += text.slice(i, i + length);
      i += length;
      continue;
    }
    const ch = String.fromCodePoint(text.codePointAt(i) as number);
    dropped += displayWidth(ch);
    i += ch.length;
  }
  return kept + text.slice(i);
}

/** The window of a capture that holds exactly the screen (and nothing above it). */
export function screenWindowOf(captured: string, geometry: ScreenGeometry): PaneWindow {
  // capture-pane ends every row with a newline: the last element is empty.
  const text = captured.endsWith('\n') ? captured.slice(0, -1) : captured;
  const bottom = Math.max(1, geometry.height) - 1;
  return cutPaneWindow(text, { width: geometry.width, start: 0, end: bottom, bottomRow: bottom, fromHistoryStart: true, toScreenBottom: true, escapes: true });
}

/** Draws a redacted window of the screen (rows 0..height-1, see pane-window.ts). */
export function renderScreenFrame(window: Pick<PaneWindow, 'lines' | 'rowsAboveStart' | 'redactions'>, geometry: ScreenGeometry): ScreenFrame {
  const rows = window.lines.map(keepOnlySgr);
  const width = Math.max(1, geometry.width);
  if (rows.length > 0 && window.rowsAboveStart > 0) {
    // A line that began above the screen: draw only the rows of it that are on screen.
    const first = rows[0] as string;
    const total = Math.max(1, Math.ceil(displayWidth(stripTerminalControls(first)) / width));
    rows[0] = dropLeadingCells(first, Math.min(window.rowsAboveStart, total - 1) * width);
  }
  const height = Math.max(1, geometry.height);
  const shown = rows.slice(-height);
  const y = clamp(geometry.cursor.y, 0, height - 1) + 1;
  const x = clamp(geometry.cursor.x, 0, Math.max(0, geometry.width - 1)) + 1;
  const cursor = `\x1b[${y};${x}H${geometry.cursor.visible ? '\x1b[?25h' : '\x1b[?25l'}`;
  return { data: `${RESET}${HOME_AND_CLEAR}${shown.join('\r\n')}${RESET}${cursor}`, redactions: window.redactions };
}
