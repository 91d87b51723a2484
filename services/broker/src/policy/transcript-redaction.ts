/**
 * Pane output as a stream of redacted plain-text lines, for transcripts. Pure (no I/O).
 *
 * Security choice: a transcript keeps TEXT, never terminal control sequences, so a secret
 * cannot hide behind them, and it is redacted one COMPLETE line at a time, so it cannot
 * hide across `%output` chunks either. In order:
 * 1. bytes are decoded as a UTF-8 stream (a character split across chunks is joined);
 * 2. escape sequences (CSI, OSC, DCS/SOS/PM/APC, two-character escapes, C1) and control
 *    characters are removed with the same scanner as every read (sanitize.ts); a sequence
 *    cut by the end of a chunk is held back until it is complete, so
 *    `AKIA\e[0mIOSFODNN7EXAMPLE` arrives as one token whatever the chunking. `\r` is
 *    dropped (so `\r\n` is a newline, and a redraw with `\r` joins, never splits, text);
 * 3. visible text is buffered until `\n`; a partial line is never persisted. A line that
 *    grows past LINE_CAP characters is cut at its last whitespace (a token is not split
 *    unless the line has no whitespace in its last CUT_SEARCH characters);
 * 4. every complete line goes through the repo's redaction (redact.ts), with one piece of
 *    state on top: after a `BEGIN ... PRIVATE KEY` line every line is redacted whole until
 *    the matching END line (or KEY_BLOCK_MAX_LINES), so no body line of a key block is
 *    judged alone.
 * The price: TUIs (full-screen programs that redraw with cursor movements) come out as
 * approximate text, and a secret deliberately split over two lines is two halves.
 */
import { redactSecrets } from './redact.js';
import { filterTerminalControls } from './sanitize.js';

export const LINE_CAP = 16 * 1024;
const CUT_SEARCH = 1024;
/** An unterminated escape sequence this long is swallowed, as a terminal would. */
const ESCAPE_CARRY_CAP = 64 * 1024;
const KEY_BLOCK_MAX_LINES = 1000;
const KEY_BEGIN = /-----BEGIN (?:[A-Z0-9]{1,20} ){0,3}PRIVATE KEY(?: BLOCK)?-----/;
const KEY_END = /-----END (?:[A-Z0-9]{1,20} ){0,3}PRIVATE KEY(?: BLOCK)?-----/;
const KEY_MARKER = '[REDACTED:private_key]';

export interface RedactedLines {
  readonly lines: string[];
  /** Secrets replaced in these lines. */
  readonly redactions: number;
}

export interface TranscriptLineRedactor {
  /** Feeds output bytes; returns the lines completed by them, redacted. */
  push(data: Buffer | string): RedactedLines;
  /** The partial line buffered now, redacted as it stands (for a reader; never persisted). */
  pending(): string;
  /** The stream ended: the partial line (if any) as a last line, redacted whole. */
  end(): RedactedLines;
}

/** Introducers of sequences that may continue past the end of a chunk. */
function opensSequence(code: number): boolean {
  return code === 0x1b || code === 0x9b || code === 0x9d || code === 0x90 || code === 0x98 || code === 0x9e || code === 0x9f;
}

export function createTranscriptLineRedactor(): TranscriptLineRedactor {
  const decoder = new TextDecoder('utf-8');
  let carry = ''; // an escape sequence that may not be complete yet
  let line = ''; // visible text of the current, unfinished line
  let inKeyBlock = false;
  let keyBlockLines = 0;

  function redactLine(text: string): { text: string; count: number } {
    if (inKeyBlock) {
      keyBlockLines += 1;
      if (KEY_END.test(text) || keyBlockLines > KEY_BLOCK_MAX_LINES) inKeyBlock = false;
      return text.trim() === '' ? { text: '', count: 0 } : { text: KEY_MARKER, count: 1 };
    }
    const begin = KEY_BEGIN.exec(text);
    if (begin !== null && !KEY_END.test(text.slice(begin.index))) {
      inKeyBlock = true;
      keyBlockLines = 0;
    }
    const r = redactSecrets(text);
    return { text: r.text, count: r.count };
  }

  /** Appends visible text, moving completed (or capped) lines to `out`. */
  function addVisible(text: string, out: string[], counter: { n: number }): void {
    let start = 0;
    for (let nl = text.indexOf('\n', start); nl !== -1; nl = text.indexOf('\n', start)) {
      line += text.slice(start, nl);
      emitCapped(out, counter);
      const r = redactLine(line);
      out.push(r.text);
      counter.n += r.count;
      line = '';
      start = nl + 1;
    }
    line += text.slice(start);
    emitCapped(out, counter);
  }

  function emitCapped(out: string[], counter: { n: number }): void {
    while (line.length > LINE_CAP) {
      const window = line.slice(LINE_CAP - CUT_SEARCH, LINE_CAP);
      const ws = Math.max(window.lastIndexOf(' '), window.lastIndexOf('\t'));
      const cut = ws === -1 ? LINE_CAP : LINE_CAP - CUT_SEARCH + ws + 1;
      const r = redactLine(line.slice(0, cut));
      out.push(r.text);
      counter.n += r.count;
      line = line.slice(cut);
    }
  }

  /** Strips controls from `carry + text`; holds back a sequence the text may cut. */
  function visibleOf(text: string, final: boolean): string {
    const raw = carry + text;
    carry = '';
    // A sequence that reaches the end of the chunk may be cut by the chunk boundary:
    // decided once more bytes are in.
    const visible = filterTerminalControls(raw, (i, length) => (!final && i + length >= raw.length && opensSequence(raw.charCodeAt(i)) ? 'stop' : 'drop'));
    if (visible.stoppedAt !== null) carry = raw.length - visible.stoppedAt > ESCAPE_CARRY_CAP ? '' : raw.slice(visible.stoppedAt);
    return visible.text;
  }

  return {
    push(data) {
      const text = typeof data === 'string' ? data : decoder.decode(data, { stream: true });
      const out: string[] = [];
      const counter = { n: 0 };
      addVisible(visibleOf(text, false), out, counter);
      return { lines: out, redactions: counter.n };
    },
    pending() {
      if (line === '') return '';
      if (inKeyBlock) return KEY_MARKER;
      return redactSecrets(line).text;
    },
    end() {
      const out: string[] = [];
      const counter = { n: 0 };
      addVisible(visibleOf(decoder.decode(), true), out, counter);
      if (line !== '') {
        const r = redactLine(line);
        out.push(r.text);
        counter.n += r.count;
        line = '';
      }
      return { lines: out, redactions: counter.n };
    },
  };
}
