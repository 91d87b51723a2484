/**
 * The known-secret index: keyed hashes of every KNOWN_SECRET_WINDOW-character window of
 * each secret form, normalized (policy/known-secrets.ts normalizedText), never the
 * secrets. Two sets:
 * - a 30-bit keyed rolling hash per window (random base and per-character table from a
 *   per-process key; 30 bits so V8 keeps the keys small integers), and the same hash of
 *   every PROBE-character window: output is scanned normalized in a probe pass that looks
 *   up only the PROBE-character windows starting at every PROBE_STEP-th character of a
 *   line (every W-character window holds one), first in a bit array of the hashes' top
 *   bits, then in their Set; only a line the probe flags is scanned window by window.
 *   Each lookup is a cache miss in an index of 85,000 windows (one RSA key and a kube
 *   config), and every character of every read paid one: that made the index +27-30 % of
 *   a 200-line tail (issue 46), and still 0.7 ms per 200-line read with the bit array;
 * - a 64-bit truncated HMAC-SHA256 (per-process random key) per window, which confirms a
 *   rolling-hash hit (a 32-bit hash of 16 characters cannot be inverted to them, and the
 *   HMAC key never leaves this process).
 * A confirmed window marks its 16 characters; overlapping marks merge into one span.
 * Values of 8-15 characters are matched as whole tokens (a hash and an HMAC of the
 * token), and the first 3-15 characters of each value are kept as HMACs so an unfinished
 * line can hold them back (policy/partial-token.ts).
 */
import { createHmac, randomBytes } from 'node:crypto';
import { escapeAt, KNOWN_SECRET_KIND, KNOWN_SECRET_WINDOW, MIN_KNOWN_SECRET, normalizedText, type KnownSecretFinder } from '../../policy/known-secrets.js';

const W = KNOWN_SECRET_WINDOW;
/** The scan's rings hold the last W characters; W is a power of two. */
const RING_MASK = 15;
if (W !== RING_MASK + 1) throw new Error('KNOWN_SECRET_WINDOW must be 16 (the scan ring)');
/** The shortest start of a known secret an unfinished line holds back. */
const MIN_PREFIX = 3;
/** The probe pass (probeLines) looks up PROBE-character windows at every PROBE_STEP-th
 * normalized character: PROBE + PROBE_STEP - 1 = W, so every W-character window holds one. */
const PROBE_STEP = 8;
const PROBE = W - PROBE_STEP + 1;

export interface FingerprintIndex extends KnownSecretFinder {
  /** Windows indexed (for logs and tests; no secret material). */
  readonly windows: number;
}

/** Characters that end a token, for short values matched whole: blanks and controls,
 * quotes, brackets, `,`, `;`, `|`, `<`, `>` (a table, since every character is tested). */
const TOKEN_BOUNDARY = (() => {
  const table = new Uint8Array(0x80);
  for (let c = 0; c <= 0x20; c += 1) table[c] = 1;
  for (const ch of '"\'`,;()<>[]{}|') table[ch.charCodeAt(0)] = 1;
  return table;
})();

function isTokenBoundary(c: number): boolean {
  return c < 0x80 && TOKEN_BOUNDARY[c] === 1;
}

/** What the probe pass does with each ASCII character, in one table lookup: most are
 * PLAIN (folded and hashed from a table); blanks are dropped, a newline ends the window,
 * `%`, `\\` and `&` may start an escape (decoded as normalizedText does). */
const PLAIN = 0;
const BLANK = 1;
const NEWLINE = 2;
const ESCAPE_OR_WIDE = 3;
const ASCII_KIND = (() => {
  const table = new Uint8Array(0x80);
  table[0x20] = BLANK;
  table[0x09] = BLANK;
  table[0x0a] = NEWLINE;
  for (const ch of '%\\&') table[ch.charCodeAt(0)] = ESCAPE_OR_WIDE;
  return table;
})();

/** The `=`/`:` inside one token whose parts are checked as short values (`a=b:c`). */
const MAX_SEPARATORS = 8;

/** Bits per indexed window in the filter (false passes about 1 in 32 at most), and its
 * bounds: 8 KiB for a small index, 16 MiB at most (4 million windows). */
const FILTER_BITS_PER_WINDOW = 32;
const MIN_FILTER_LOG2 = 16;
const MAX_FILTER_LOG2 = 27;

/** A bit array over the top bits of each window's 32-bit rolling hash (`rolling` holds
 * them shifted right by 2): a window whose bit is clear is not indexed. */
function windowFilter(rolling: ReadonlySet<number>): { bits: Uint32Array; shift: number } {
  let log2 = MIN_FILTER_LOG2;
  while (log2 < MAX_FILTER_LOG2 && 2 ** log2 < rolling.size * FILTER_BITS_PER_WINDOW) log2 += 1;
  const shift = 32 - log2;
  const bits = new Uint32Array(2 ** (log2 - 5));
  for (const key of rolling) {
    const bit = key >>> (shift - 2);
    bits[bit >>> 5]! |= 1 << (bit & 31);
  }
  return { bits, shift };
}

/**
 * `forms`: encoded forms of secrets of 16+ characters, matched by window, as printed and
 * normalized (normalizedText: escapes decoded, blanks dropped, case folded).
 * `shortValues`: secrets of MIN_KNOWN_SECRET..15 characters, matched only as a whole
 * token (between blanks, quotes, brackets, `,`/`;`/`|`, or after `=`/`:`), so a short
 * value does not blank every word that holds it.
 */
export function buildFingerprintIndex(forms: readonly string[], shortValues: readonly string[] = [], values: readonly string[] = []): FingerprintIndex {
  const key = randomBytes(32);
  const seed = randomBytes(4 * 257);
  const table = new Uint32Array(256);
  for (let i = 0; i < 256; i += 1) table[i] = seed.readUInt32LE(i * 4);
  const base = (seed.readUInt32LE(1024) | 1) >>> 0;
  // base^W (mod 2^32), to take the leaving character out of the rolling hash.
  let outFactor = 1;
  for (let i = 0; i < W; i += 1) outFactor = Math.imul(outFactor, base) >>> 0;
  let probeOutFactor = 1;
  for (let i = 0; i < PROBE; i += 1) probeOutFactor = Math.imul(probeOutFactor, base) >>> 0;
  const code = (c: number) => table[c & 0xff]! ^ (c >>> 8);

  const rolling = new Set<number>();
  const confirmed = new Set<string>();
  const hmac = (window: string) => createHmac('sha256', key).update(window, 'utf8').digest('hex').slice(0, 16);

  /** The keyed rolling hashes of every PROBE-character window, for the probe pass. */
  const probes = new Set<number>();
  const addForm = (form: string) => {
    let h = 0;
    let p = 0;
    for (let i = 0; i < form.length; i += 1) {
      h = (Math.imul(h, base) + code(form.charCodeAt(i))) >>> 0;
      p = (Math.imul(p, base) + code(form.charCodeAt(i))) >>> 0;
      if (i >= W) h = (h - Math.imul(outFactor, code(form.charCodeAt(i - W)))) >>> 0;
      if (i >= PROBE) p = (p - Math.imul(probeOutFactor, code(form.charCodeAt(i - PROBE)))) >>> 0;
      if (i >= PROBE - 1) probes.add(p >>> 2);
      if (i >= W - 1) {
        rolling.add(h >>> 2);
        confirmed.add(hmac(form.slice(i - W + 1, i + 1)));
      }
    }
  };
  // Only the normalized forms: the text is scanned normalized too (scanNormalized), and a
  // form printed as is is still itself once both sides are normalized.
  for (const form of forms) addForm(normalizedText(form));
  const filter = windowFilter(probes);

  /** Short values: a keyed hash of the whole token, confirmed by HMAC. */
  const tokenHash = (text: string, start: number, end: number) => {
    let h = end - start;
    for (let i = start; i < end; i += 1) h = (Math.imul(h, base) + code(text.charCodeAt(i))) >>> 0;
    return h >>> 2;
  };
  const shortRolling = new Set<number>();
  const shortConfirmed = new Set<string>();
  /** Bit n set: a short value of n characters is indexed (most tokens are skipped by length). */
  let shortLengths = 0;
  for (const value of shortValues) {
    if (value.length < MIN_KNOWN_SECRET || value.length >= W) continue;
    shortLengths |= 1 << value.length;
    shortRolling.add(tokenHash(value, 0, value.length));
    shortConfirmed.add(hmac(`short\0${value}`));
  }

  /** The first MIN_PREFIX..W-1 characters of each value, for unfinished lines. */
  const prefixes = new Set<string>();
  for (const value of values) {
    for (let k = MIN_PREFIX; k < Math.min(W, value.length); k += 1) prefixes.add(hmac(`prefix\0${value.slice(0, k)}`));
  }

  /**
   * The normalized character at `i` of `text` (escapes decoded, case folded) and how many
   * characters of `text` it takes, as normalizedText reads it; blanks and newlines are
   * handled by the callers. Written to `decoded` (one pair, no allocation per character).
   */
  const decoded = new Uint32Array(2);
  const normalizedAt = (text: string, i: number, c: number) => {
    let len = 1;
    if (c === 0x25 || c === 0x5c || c === 0x26) {
      const esc = escapeAt(text, i);
      if (esc !== null) {
        c = esc[0].charCodeAt(0);
        len = esc[1];
      }
    }
    if (c >= 0x41 && c <= 0x5a) c += 0x20;
    else if (c >= 0x80) c = String.fromCharCode(c).toLowerCase().charCodeAt(0);
    decoded[0] = c;
    decoded[1] = len;
  };

  /**
   * The probe pass: whether a line may hold an indexed window. It looks up only the
   * PROBE-character windows that start at every PROBE_STEP-th normalized character of a
   * line (a quarter of the lookups of a window per character: each lookup is a cache miss
   * in a filter of hundreds of KiB, which made the index cost 0.4-0.6 ms more per
   * 200-line read inside redaction than the scan alone, issue 46). Any W normalized
   * characters of a line hold a probe window at such a start (PROBE + PROBE_STEP - 1 = W),
   * so no line holding an indexed window is passed over; the lines it flags are scanned
   * window by window (scanLine), which confirms by HMAC and gives the spans.
   */
  const ring = new Uint16Array(W);
  const ringFrom = new Uint32Array(W);
  /** The probe pass's ring holds each character's code (code(c)), not the character. */
  const probeRing = new Uint32Array(W);
  /** code() of each ASCII character once case is folded (the probe pass's common case). */
  const asciiCode = new Uint32Array(0x80);
  for (let c = 0; c < 0x80; c += 1) asciiCode[c] = code(c >= 0x41 && c <= 0x5a ? c + 0x20 : c);
  // Locals for the loop below, which runs once per character of every read.
  const filterBits = filter.bits;
  const filterShift = filter.shift;
  const probeLines = (text: string, flag: (lineStart: number, lineEnd: number) => void) => {
    let p = 0;
    let count = 0;
    let untilProbe = PROBE;
    let pos = 0;
    let lineStart = 0;
    for (let i = 0; i < text.length; ) {
      const c = text.charCodeAt(i);
      let v: number;
      let len = 1;
      const kind = c < 0x80 ? ASCII_KIND[c]! : ESCAPE_OR_WIDE;
      if (kind === PLAIN) v = asciiCode[c]!;
      else if (kind === BLANK) {
        i += 1;
        continue;
      } else if (kind === NEWLINE) {
        p = 0;
        count = 0;
        untilProbe = PROBE;
        i += 1;
        lineStart = i;
        continue;
      } else {
        normalizedAt(text, i, c);
        v = code(decoded[0]!);
        len = decoded[1]!;
      }
      p = (Math.imul(p, base) + v) >>> 0;
      // The code leaving the probe window sits PROBE places back: ring[pos + W - PROBE].
      if (count >= PROBE) p = (p - Math.imul(probeOutFactor, probeRing[(pos + W - PROBE) & RING_MASK]!)) >>> 0;
      probeRing[pos] = v;
      pos = (pos + 1) & RING_MASK;
      count += 1;
      i += len;
      untilProbe -= 1;
      if (untilProbe !== 0) continue;
      untilProbe = PROBE_STEP;
      const bit = p >>> filterShift;
      if ((filterBits[bit >>> 5]! & (1 << (bit & 31))) === 0 || !probes.has(p >>> 2)) continue;
      const next = text.indexOf('\n', i);
      const lineEnd = next < 0 ? text.length : next;
      flag(lineStart, lineEnd);
      i = lineEnd;
    }
  };

  /**
   * The W-character windows of one line of `text` (`from` to `to`, no newline inside) as
   * normalizedText would give it, found without building that text: the last W
   * normalized characters and where each came from sit in rings. `emit` gets spans of
   * `text`.
   */
  const scanLine = (text: string, from: number, to: number, emit: (start: number, end: number) => void) => {
    let spanStart = -1;
    let spanEnd = -1;
    let h = 0;
    let count = 0;
    let pos = 0;
    for (let i = from; i < to; ) {
      const c0 = text.charCodeAt(i);
      if (c0 === 0x20 || c0 === 0x09) {
        i += 1;
        continue;
      }
      normalizedAt(text, i, c0);
      const c = decoded[0]!;
      h = (Math.imul(h, base) + code(c)) >>> 0;
      if (count >= W) h = (h - Math.imul(outFactor, code(ring[pos]!))) >>> 0;
      ring[pos] = c;
      ringFrom[pos] = i;
      pos = (pos + 1) & RING_MASK;
      count += 1;
      i += decoded[1]!;
      if (count < W || !rolling.has(h >>> 2)) continue;
      let window = '';
      for (let k = 0; k < W; k += 1) window += String.fromCharCode(ring[(pos + k) & RING_MASK]!);
      if (!confirmed.has(hmac(window))) continue;
      const start = ringFrom[pos]!;
      if (spanStart >= 0 && start <= spanEnd) spanEnd = i;
      else {
        if (spanStart >= 0) emit(spanStart, spanEnd);
        spanStart = start;
        spanEnd = i;
      }
    }
    if (spanStart >= 0) emit(spanStart, spanEnd);
  };

  const scanNormalized = (text: string, emit: (start: number, end: number) => void) => {
    probeLines(text, (from, to) => scanLine(text, from, to, emit));
  };

  /** Whole tokens of MIN_KNOWN_SECRET..15 characters, and the part after a `=`/`:` in one. */
  const scanShort = (text: string, emit: (start: number, end: number) => void) => {
    const check = (start: number, end: number) => {
      const len = end - start;
      if (len < MIN_KNOWN_SECRET || len >= W || (shortLengths & (1 << len)) === 0 || !shortRolling.has(tokenHash(text, start, end))) return;
      if (shortConfirmed.has(hmac(`short\0${text.slice(start, end)}`))) emit(start, end);
    };
    let start = 0;
    // The `=`/`:` of the current token, so its parts are checked without a second pass.
    let separators = 0;
    const at: number[] = [];
    for (let i = 0; i <= text.length; i += 1) {
      const c = i < text.length ? text.charCodeAt(i) : 0x20;
      if (!isTokenBoundary(c)) {
        if ((c === 0x3d || c === 0x3a) && separators < MAX_SEPARATORS) at[separators++] = i;
        continue;
      }
      if (i - start >= MIN_KNOWN_SECRET) {
        check(start, i);
        for (let k = 0; k < separators; k += 1) {
          check(start, at[k]!);
          check(at[k]! + 1, i);
        }
      }
      start = i + 1;
      separators = 0;
    }
  };

  return {
    windows: confirmed.size + shortConfirmed.size,
    prefixStart(text) {
      if (prefixes.size === 0) return -1;
      // Longest first: hold back as much as spells a secret's start.
      for (let k = Math.min(W - 1, text.length); k >= MIN_PREFIX; k -= 1) {
        const start = text.length - k;
        if (start > 0 && !isTokenBoundary(text.charCodeAt(start - 1)) && text.charCodeAt(start - 1) !== 0x3d && text.charCodeAt(start - 1) !== 0x3a) continue;
        if (prefixes.has(hmac(`prefix\0${text.slice(start)}`))) return start;
      }
      return -1;
    },
    find(visible, emit) {
      if (rolling.size === 0 && shortRolling.size === 0) return;
      // As printed and in the accidental encodings of issue 46 A.5, in one pass.
      if (rolling.size > 0) scanNormalized(visible, (s, e) => emit(s, e, KNOWN_SECRET_KIND));
      if (shortRolling.size > 0) scanShort(visible, (s, e) => emit(s, e, KNOWN_SECRET_KIND));
    },
  };
}
