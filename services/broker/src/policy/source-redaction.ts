/**
 * Redaction for source text: policy/redact.ts, the one redactor, applied to whole units.
 *
 * A caller chooses the line range it reads, so a range must never be redacted on its own:
 * the rows strictly inside a key block have no BEGIN/END marker to be recognised by. The
 * whole file (or as much of it as is read) is redacted with `keepLines`, so line N of the
 * result is line N of the file, and only then is the requested range cut out.
 */
import { redactSecrets } from './redact.js';

export interface RedactedText {
  text: string;
  count: number;
}

export function redactText(text: string): RedactedText {
  const r = redactSecrets(text);
  return { text: r.text, count: r.count };
}

/** A line that is nothing but a long base64 run: key material out of context. */
export const BARE_BASE64_LINE = /^[\s+-]*[A-Za-z0-9+/]{40,}={0,2}\s*$/;

/** Redact lines as one text and return exactly as many lines, each redacted in context.
 * `count` is the number of redacted lines. */
export function redactLines(lines: readonly string[]): { lines: string[]; count: number } {
  const whole = redactSecrets(lines.join('\n'), { keepLines: true });
  const out = whole.text.split('\n');
  let count = 0;
  for (let i = 0; i < lines.length; i += 1) if (out[i] !== lines[i]) count += 1;
  return { lines: out, count };
}

/** Lines `start`..`end` (1-based, inclusive) of `allLines` after redacting all of them. */
export function redactedRange(allLines: readonly string[], start: number, end: number): { lines: string[]; count: number } {
  const redacted = redactLines(allLines);
  const lines = redacted.lines.slice(start - 1, end);
  let count = 0;
  for (let i = 0; i < lines.length; i += 1) if (lines[i] !== allLines[start - 1 + i]) count += 1;
  return { lines, count };
}

/** A patch's hunk line: its first column is the diff's, not the file's. */
const HUNK_LINE = /^[ +-]/;

/**
 * A patch redacted twice over: as printed, and with the diff's first column taken off the
 * lines of its hunks, so each line is judged as the file holds it (a base64 line with a
 * `+` glued in front decodes to something else; a key body's run has a `+` where the
 * file has none). A line either view changes comes out changed: the file's view wins,
 * with the diff's column put back. `count` is the number of changed lines.
 */
export function redactPatch(text: string): RedactedText {
  const lines = text.split('\n');
  let inHunk = false;
  const inHunkAt = lines.map((line) => {
    if (line.startsWith('@@')) inHunk = true;
    else if (line.startsWith('diff --git ')) inHunk = false;
    return inHunk && HUNK_LINE.test(line);
  });
  const printed = redactSecrets(text, { keepLines: true }).text.split('\n');
  const stripped = lines.map((line, i) => (inHunkAt[i] ? line.slice(1) : line));
  const asFile = redactSecrets(stripped.join('\n'), { keepLines: true }).text.split('\n');
  let count = 0;
  const out = lines.map((line, i) => {
    const file = asFile[i] ?? '';
    if (file !== stripped[i]) {
      count += 1;
      return inHunkAt[i] ? `${line[0]}${file}` : file;
    }
    const shown = printed[i] ?? '';
    if (shown !== line) count += 1;
    return shown;
  });
  return { text: out.join('\n'), count };
}
