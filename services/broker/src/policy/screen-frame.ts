/**
 * One frame of a live terminal view: a pane's visible screen as captured by
 * `capture-pane -p -e -J` (rows of text with SGR colour escapes, wrapped rows joined),
 * turned into terminal bytes that redraw it in xterm.js. Pure.
 *
 * Security: this is the only thing the live view ever sends, never raw `%output` bytes.
 * A raw output stream is a program of cursor moves, partial redraws and erasures; a
 * secret can arrive in pieces in any order, so redacting it reliably is not possible.
 * A captured screen is the result of that program: its text is whole (wrapped rows
 * joined by -J), and `redactSecrets` (ANSI-aware) runs on it before anything else.
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
import { redactSecrets } from './redact.js';
import { terminalControlLengthAt } from './sanitize.js';

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
  let out = '';
  let runStart = 0;
  let i = 0;
  while (i < text.length) {
    const length = terminalControlLengthAt(text, i);
    if (length === 0) {
      i += 1;
      continue;
    }
    if (i > runStart) out += text.slice(runStart, i);
    const sequence = text.slice(i, i + length);
    if (SGR.test(sequence)) out += sequence;
    i += length;
    runStart = i;
  }
  if (runStart < text.length) out += text.slice(runStart);
  return out;
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(Math.max(Math.trunc(value), min), max);
}

export function renderScreenFrame(captured: string, geometry: ScreenGeometry): ScreenFrame {
  const redacted = redactSecrets(captured);
  const rows = keepOnlySgr(redacted.text).split('\n');
  // capture-pane ends every row with a newline: the last element is empty.
  if (rows.length > 0 && rows[rows.length - 1] === '') rows.pop();
  const height = Math.max(1, geometry.height);
  const shown = rows.slice(-height);
  const y = clamp(geometry.cursor.y, 0, height - 1) + 1;
  const x = clamp(geometry.cursor.x, 0, Math.max(0, geometry.width - 1)) + 1;
  const cursor = `\x1b[${y};${x}H${geometry.cursor.visible ? '\x1b[?25h' : '\x1b[?25l'}`;
  return { data: `${RESET}${HOME_AND_CLEAR}${shown.join('\r\n')}${RESET}${cursor}`, redactions: redacted.count };
}
