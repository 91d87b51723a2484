/**
 * Pane output as a stream of redacted plain-text lines, for transcripts. Pure (no I/O).
 *
 * Security choice: a transcript keeps TEXT, never terminal control sequences, so a secret
 * cannot hide behind them, and a line is judged together with its neighbours, so a secret
 * cannot hide across lines or `%output` chunks either: the stream sees what a window read
 * would see. In order:
 * 1. bytes are decoded as a UTF-8 stream (a character split across chunks is joined);
 * 2. escape sequences (CSI, OSC, DCS/SOS/PM/APC, two-character escapes, C1) and control
 *    characters are removed with the same scanner as every read (sanitize.ts); a sequence
 *    cut by the end of a chunk is held back until it is complete, so
 *    `AKIA\e[0mQ7ZK2M5RWX3TLNB4` arrives as one token whatever the chunking. `\r` is
 *    dropped (so `\r\n` is a newline, and a redraw with `\r` joins, never splits, text);
 * 3. visible text is buffered until `\n` (up to LINE_HARD_CAP); a partial line is never
 *    persisted;
 * 4. a complete line that could belong to a multi-line secret (a base64 or hex run, a hex
 *    dump line, a `3a:f2:` line) is HELD until a line that cannot arrives (or HOLD_LINES
 *    pile up); then the held lines and that line are redacted as one text together with
 *    the CONTEXT_LINES lines before them (the repo's redactor, redact.ts), so `tail -n 2
 *    id_rsa` (a body line, then END), a key cut sideways, a hex dump and a `- name:
 *    DB_PASSWORD` / `value: X` pair are judged whole. After a `BEGIN ... PRIVATE KEY` line
 *    every line is a marker until the matching END (or KEY_BLOCK_MAX_LINES);
 * 5. a line longer than LINE_CAP is stored as several, cut AFTER redaction and never
 *    inside a marker, so a token across character 16,384 is found whole.
 * Readers see the held lines and the partial line as `pending`, redacted as the bottom
 * of a window would be, with a trailing fragment that could start a token held back
 * (partial-token.ts). The price: TUIs come out as approximate text, and a secret
 * deliberately printed in two halves on two lines is two halves.
 */
import { holdBackPartialToken } from './partial-token.js';
import { REDACTION_MARKER, redactSecrets } from './redact.js';
import { filterTerminalControls } from './sanitize.js';

/** The longest line stored; longer lines are stored as several (cut after redaction). */
export const LINE_CAP = 16 * 1024;
/** An unfinished line this long is taken as complete. */
const LINE_HARD_CAP = 1024 * 1024;
/** Complete lines held back at most, and the lines before them a judgement sees. */
const HOLD_LINES = 256;
const CONTEXT_LINES = 3;
/** A line that could belong to a secret spread over lines: a base64 or hex run, a hex dump
 * line (`xxd`, `hexdump -C`), bytes with colons (`openssl rsa -text`). */
const HOLD_CANDIDATE = /[0-9a-fA-F]{32,}|^[0-9a-f]{7,16}[: ] |^[ \t]+(?:[0-9a-f]{2}:){4,}/;
const BASE64_RUN = /[A-Za-z0-9+/=]{16,}/g;

/** Key bodies and encoded secrets are runs with upper case, lower case and digits. */
function holdCandidate(text: string): boolean {
  if (HOLD_CANDIDATE.test(text)) return true;
  for (const m of text.matchAll(BASE64_RUN)) if (/[A-Z]/.test(m[0]) && /[a-z]/.test(m[0]) && /[0-9]/.test(m[0])) return true;
  return false;
}
/** An unterminated escape sequence this long is swallowed, as a terminal would. */
const ESCAPE_CARRY_CAP = 64 * 1024;
const KEY_BLOCK_MAX_LINES = 1000;
const KEY_BEGIN = /-----BEGIN (?:[A-Z0-9]{1,20} ){0,3}PRIVATE KEY(?: BLOCK)?-----/;
const KEY_END = /-----END (?:[A-Z0-9]{1,20} ){0,3}PRIVATE KEY(?: BLOCK)?-----/;
const KEY_MARKER = '[REDACTED:private_key]';
const KEY_BLOCK_LINE = /^[^\n]{0,160}?[A-Za-z0-9+/]{16,}={0,2}(?:\$|\^M\$|>|[ \t]*[│|]?[ \t]*)$|^[ \t]*[A-Za-z0-9+/]{1,76}={0,2}[ \t]*$|^[ \t]*$|^[A-Za-z-]+: /;

export interface RedactedLines {
  readonly lines: string[];
  /** Secrets replaced in these lines. */
  readonly redactions: number;
}

export interface TranscriptLineRedactor {
  /** Feeds output bytes; returns the lines completed by them, redacted. */
  push(data: Buffer | string): RedactedLines;
  /** The held lines and the partial line, redacted as the bottom of a window (for a
   * reader; never persisted). */
  pending(): string;
  /** Lines held back now (a recorder judges them with `flush` when output goes quiet). */
  holding(): boolean;
  /** Judges the held lines now, as the bottom of the stream so far. */
  flush(): RedactedLines;
  /** The stream ended: the partial line (if any) as a last line, redacted whole. */
  end(): RedactedLines;
}

/** Introducers of sequences that may continue past the end of a chunk. */
function opensSequence(code: number): boolean {
  return code === 0x1b || code === 0x9b || code === 0x9d || code === 0x90 || code === 0x98 || code === 0x9e || code === 0x9f;
}

const markersIn = (text: string) => text.match(REDACTION_MARKER)?.length ?? 0;

/** Cuts a redacted line into pieces of at most LINE_CAP characters, at a blank where one
 * is near and never inside a marker. */
export function cutLongLine(line: string): string[] {
  const pieces: string[] = [];
  let rest = line;
  while (rest.length > LINE_CAP) {
    let cut = LINE_CAP;
    const blank = Math.max(rest.lastIndexOf(' ', LINE_CAP), rest.lastIndexOf('\t', LINE_CAP));
    if (blank > LINE_CAP - 1024) cut = blank + 1;
    const open = rest.lastIndexOf('[REDACTED:', cut - 1);
    if (open >= 0 && rest.indexOf(']', open) >= cut) cut = open > 0 ? open : rest.indexOf(']', open) + 1;
    pieces.push(rest.slice(0, cut));
    rest = rest.slice(cut);
  }
  pieces.push(rest);
  return pieces;
}

export function createTranscriptLineRedactor(): TranscriptLineRedactor {
  const decoder = new TextDecoder('utf-8');
  let carry = ''; // an escape sequence that may not be complete yet
  let line = ''; // visible text of the current, unfinished line
  let held: string[] = []; // complete lines not judged yet
  let context: string[] = []; // the last lines judged (originals), for the next judgement
  let inKeyBlock = false;
  let keyBlockLines = 0;

  /** Redacts `block` seen below `context`; the block's lines, redacted. */
  function judge(block: readonly string[]): { lines: string[]; count: number } {
    const all = [...context, ...block];
    const redacted = redactSecrets(all.join('\n'), { keepLines: true }).text.split('\n').slice(context.length);
    context = all.slice(-CONTEXT_LINES);
    let count = 0;
    for (let i = 0; i < block.length; i += 1) count += Math.max(0, markersIn(redacted[i] as string) - markersIn(block[i] as string));
    return { lines: redacted, count };
  }

  function emit(lines: readonly string[], out: string[], counter: { n: number }): void {
    if (lines.length === 0) return;
    const r = judge(lines);
    for (const l of r.lines) out.push(...cutLongLine(l));
    counter.n += r.count;
  }

  /** A complete line: into a key block's markers, held, or judged with what was held. */
  function completeLine(text: string, out: string[], counter: { n: number }): void {
    // A key block's lines are base64, blank or a PEM header (`Proc-Type: ...`); any other
    // line ends it (a BEGIN quoted inside a line, `head -n 3 id_rsa`): judged as usual.
    if (inKeyBlock && !KEY_BLOCK_LINE.test(text) && !KEY_END.test(text)) inKeyBlock = false;
    if (inKeyBlock) {
      emit(held, out, counter);
      held = [];
      keyBlockLines += 1;
      if (KEY_END.test(text) || keyBlockLines > KEY_BLOCK_MAX_LINES) inKeyBlock = false;
      context = [...context, text].slice(-CONTEXT_LINES);
      if (text.trim() === '') out.push('');
      else {
        out.push(KEY_MARKER);
        counter.n += 1;
      }
      return;
    }
    const begin = KEY_BEGIN.exec(text);
    if (begin !== null && !KEY_END.test(text.slice(begin.index))) {
      emit([...held, text], out, counter);
      held = [];
      inKeyBlock = true;
      keyBlockLines = 0;
      return;
    }
    if (holdCandidate(text) && held.length < HOLD_LINES) {
      held.push(text);
      return;
    }
    emit([...held, text], out, counter);
    held = [];
  }

  /** Appends visible text, moving completed lines to `out`. */
  function addVisible(text: string, out: string[], counter: { n: number }): void {
    let start = 0;
    for (let nl = text.indexOf('\n', start); nl !== -1; nl = text.indexOf('\n', start)) {
      line += text.slice(start, nl);
      completeLine(line, out, counter);
      line = '';
      start = nl + 1;
    }
    line += text.slice(start);
    if (line.length > LINE_HARD_CAP) {
      completeLine(line, out, counter);
      line = '';
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
      if (line === '' && held.length === 0) return '';
      if (inKeyBlock) return line === '' ? '' : KEY_MARKER;
      // The bottom of a window: held lines and the partial line judged below the context
      // (a run touching the bottom edge counts as cut), the unfinished fragment held back.
      const lines = line === '' ? held : [...held, line];
      const redacted = redactSecrets([...context, ...lines].join('\n'), { keepLines: true }).text.split('\n').slice(context.length);
      if (line !== '') redacted[redacted.length - 1] = holdBackPartialToken(redacted[redacted.length - 1] as string);
      return redacted.join('\n');
    },
    holding: () => held.length > 0,
    flush() {
      const out: string[] = [];
      const counter = { n: 0 };
      emit(held, out, counter);
      held = [];
      return { lines: out, redactions: counter.n };
    },
    end() {
      const out: string[] = [];
      const counter = { n: 0 };
      addVisible(visibleOf(decoder.decode(), true), out, counter);
      if (line !== '') {
        completeLine(line, out, counter);
        line = '';
      }
      emit(held, out, counter);
      held = [];
      return { lines: out, redactions: counter.n };
    },
  };
}
