/**
 * Turn captured terminal bytes (already decoded to a string) into plain text: no
 * escape sequences, no control characters except newline and tab. Pure.
 *
 * A hand-written scanner, not a regex: it runs in one linear pass whatever the input,
 * and it follows the ECMA-48 / xterm structure (CSI, OSC, DCS/SOS/PM/APC strings,
 * two-character escapes, 8-bit C1 forms), so a hostile program cannot smuggle a
 * sequence past it by nesting or by leaving a string unterminated.
 */

const ESC = 0x1b;
const BEL = 0x07;
const CAN = 0x18;
const SUB = 0x1a;
const DEL = 0x7f;
const ST_8BIT = 0x9c;
const CSI_8BIT = 0x9b;
const OSC_8BIT = 0x9d;
const STRING_8BIT: ReadonlySet<number> = new Set([0x90 /* DCS */, 0x98 /* SOS */, 0x9e /* PM */, 0x9f /* APC */]);
const STRING_INTRODUCERS: ReadonlySet<string> = new Set(['P' /* DCS */, 'X' /* SOS */, '^' /* PM */, '_' /* APC */]);

/** Length of a CSI body starting at `from` (after `ESC [` or 0x9B): params, intermediates, final. */
function csiBodyLength(text: string, from: number): number {
  let i = from;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c >= 0x30 && c <= 0x3f) i += 1; // parameter bytes, incl. private markers ? < = >
    else break;
  }
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c >= 0x20 && c <= 0x2f) i += 1; // intermediate bytes
    else break;
  }
  if (i < text.length) {
    const c = text.charCodeAt(i);
    if (c >= 0x40 && c <= 0x7e) return i + 1 - from; // final byte
  }
  // Malformed or cut off: drop what was consumed; whatever stopped us is scanned next.
  return i - from;
}

/**
 * Length of a control string body (OSC, DCS, SOS, PM, APC) starting at `from`,
 * including its terminator. Ends at BEL, ST (`ESC \` or 0x9C), CAN or SUB; another
 * ESC ends it without being consumed (it starts the next sequence). Unterminated
 * strings run to the end of the text: a terminal would swallow them too, and keeping
 * the rest would show text the user never saw.
 */
function controlStringLength(text: string, from: number): number {
  let i = from;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === BEL || c === ST_8BIT || c === CAN || c === SUB) return i + 1 - from;
    if (c === ESC) return (text[i + 1] === '\\' ? i + 2 : i) - from;
    i += 1;
  }
  return i - from;
}

/**
 * How many UTF-16 units of `text` starting at `index` form a control sequence or a
 * control character that is not shown; 0 when `text[index]` is visible text (newline
 * and tab count as visible). Carriage returns are controls: `\r\n` becomes `\n` and a
 * lone `\r` disappears.
 */
export function terminalControlLengthAt(text: string, index: number): number {
  const c = text.charCodeAt(index);
  // Printable ASCII, almost every character of a pane: no branch below applies to it.
  if (c >= 0x20 && c < DEL) return 0;
  if (c === ESC) {
    const next = text[index + 1];
    if (next === undefined) return 1;
    if (next === '[') return 2 + csiBodyLength(text, index + 2);
    if (next === ']' || STRING_INTRODUCERS.has(next)) return 2 + controlStringLength(text, index + 2);
    // Two-character (or longer, with intermediates such as `ESC ( B`) escape sequences.
    let i = index + 1;
    while (i < text.length && text.charCodeAt(i) >= 0x20 && text.charCodeAt(i) <= 0x2f) i += 1;
    const final = text.charCodeAt(i);
    if (i < text.length && final >= 0x30 && final <= 0x7e) return i + 1 - index;
    // ESC followed by something that is not a sequence: drop the ESC (and any intermediates).
    return i - index;
  }
  if (c === CSI_8BIT) return 1 + csiBodyLength(text, index + 1);
  if (c === OSC_8BIT || STRING_8BIT.has(c)) return 1 + controlStringLength(text, index + 1);
  if (c >= 0x80 && c <= 0x9f) return 1; // other C1 controls
  if (c < 0x20 && c !== 0x0a && c !== 0x09) return 1; // C0 except \n and \t
  if (c === DEL) return 1;
  return 0;
}

/** What a walk over text does with one control sequence (or control character). */
export type ControlAction = 'drop' | 'keep' | 'stop';

/**
 * `text` with each escape sequence and control character (`terminalControlLengthAt`) kept
 * or dropped as `decide` says, in one walk. On 'stop' the walk ends: the text from that
 * sequence on is left out, and `stoppedAt` is where it starts.
 */
export function filterTerminalControls(text: string, decide: (start: number, length: number) => ControlAction): { text: string; stoppedAt: number | null } {
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
    const action = decide(i, length);
    if (action === 'stop') return { text: out, stoppedAt: i };
    if (action === 'keep') out += text.slice(i, i + length);
    i += length;
    runStart = i;
  }
  if (runStart < text.length) out += text.slice(runStart);
  return { text: out, stoppedAt: null };
}

const dropAll = (): ControlAction => 'drop';

/** Remove every escape sequence and control character except `\n` and `\t`. */
export function stripTerminalControls(text: string): string {
  return filterTerminalControls(text, dropAll).text;
}

/** Split text into lines on `\n`; a trailing newline does not make an extra empty line. */
export function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines;
}

/**
 * Drop blank (empty or whitespace-only) lines from the end: `capture-pane` pads the
 * screen below the cursor with empty rows.
 */
export function trimTrailingBlankLines(lines: readonly string[]): string[] {
  let end = lines.length;
  while (end > 0 && (lines[end - 1] as string).trim() === '') end -= 1;
  return lines.slice(0, end);
}
