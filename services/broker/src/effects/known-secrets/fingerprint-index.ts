/**
 * The known-secret index: keyed hashes of every KNOWN_SECRET_WINDOW-character window of
 * each secret form (policy/known-secrets.ts), never the secrets. Two sets:
 * - a 32-bit keyed rolling hash per window (random base and per-character table from a
 *   per-process key): output is scanned with it in O(1) per character;
 * - a 64-bit truncated HMAC-SHA256 (per-process random key) per window, which confirms a
 *   rolling-hash hit (a 32-bit hash of 16 characters cannot be inverted to them, and the
 *   HMAC key never leaves this process).
 * A confirmed window marks its 16 characters; overlapping marks merge into one span.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { KNOWN_SECRET_KIND, KNOWN_SECRET_WINDOW, MIN_KNOWN_SECRET, normalizeForMatch, type KnownSecretFinder } from '../../policy/known-secrets.js';

const W = KNOWN_SECRET_WINDOW;
/** The shortest start of a known secret an unfinished line holds back. */
const MIN_PREFIX = 3;

export interface FingerprintIndex extends KnownSecretFinder {
  /** Windows indexed (for logs and tests; no secret material). */
  readonly windows: number;
}

/** Characters that end a token, for short values matched whole. */
function isTokenBoundary(c: number): boolean {
  return c <= 0x20 || c === 0x22 || c === 0x27 || c === 0x60 || c === 0x2c || c === 0x3b || c === 0x28 || c === 0x29 || c === 0x3c || c === 0x3e || c === 0x5b || c === 0x5d || c === 0x7b || c === 0x7d || c === 0x7c;
}

/**
 * `forms`: encoded forms of secrets of 16+ characters, matched by window, as printed and
 * normalized (normalizeForMatch: escapes decoded, blanks dropped, case folded).
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
  const code = (c: number) => table[c & 0xff]! ^ (c >>> 8);

  const rolling = new Set<number>();
  const confirmed = new Set<string>();
  const hmac = (window: string) => createHmac('sha256', key).update(window, 'utf8').digest('hex').slice(0, 16);

  const addForm = (form: string) => {
    let h = 0;
    for (let i = 0; i < form.length; i += 1) {
      h = (Math.imul(h, base) + code(form.charCodeAt(i))) >>> 0;
      if (i >= W) h = (h - Math.imul(outFactor, code(form.charCodeAt(i - W)))) >>> 0;
      if (i >= W - 1) {
        rolling.add(h);
        confirmed.add(hmac(form.slice(i - W + 1, i + 1)));
      }
    }
  };
  for (const form of forms) {
    addForm(form);
    const normal = normalizeForMatch(form).text;
    if (normal !== form) addForm(normal);
  }

  /** Short values: a keyed hash of the whole token, confirmed by HMAC. */
  const tokenHash = (text: string, start: number, end: number) => {
    let h = end - start;
    for (let i = start; i < end; i += 1) h = (Math.imul(h, base) + code(text.charCodeAt(i))) >>> 0;
    return h;
  };
  const shortRolling = new Set<number>();
  const shortConfirmed = new Set<string>();
  for (const value of shortValues) {
    if (value.length < MIN_KNOWN_SECRET || value.length >= W) continue;
    shortRolling.add(tokenHash(value, 0, value.length));
    shortConfirmed.add(hmac(`short\0${value}`));
  }

  /** The first MIN_PREFIX..W-1 characters of each value, for unfinished lines. */
  const prefixes = new Set<string>();
  for (const value of values) {
    for (let k = MIN_PREFIX; k < Math.min(W, value.length); k += 1) prefixes.add(hmac(`prefix\0${value.slice(0, k)}`));
  }

  /** Windows of `text` that are indexed; `emit` gets [start, end) in `text`. */
  const scan = (text: string, emit: (start: number, end: number) => void) => {
    let spanStart = -1;
    let spanEnd = -1;
    let h = 0;
    let lineStart = 0;
    for (let i = 0; i < text.length; i += 1) {
      const c = text.charCodeAt(i);
      if (c === 0x0a) {
        h = 0;
        lineStart = i + 1;
        continue;
      }
      h = (Math.imul(h, base) + code(c)) >>> 0;
      if (i - lineStart >= W) h = (h - Math.imul(outFactor, code(text.charCodeAt(i - W)))) >>> 0;
      if (i - lineStart < W - 1 || !rolling.has(h)) continue;
      const start = i - W + 1;
      if (!confirmed.has(hmac(text.slice(start, i + 1)))) continue;
      if (spanStart >= 0 && start <= spanEnd) spanEnd = i + 1;
      else {
        if (spanStart >= 0) emit(spanStart, spanEnd);
        spanStart = start;
        spanEnd = i + 1;
      }
    }
    if (spanStart >= 0) emit(spanStart, spanEnd);
  };

  /** Whole tokens of MIN_KNOWN_SECRET..15 characters, and the part after a `=`/`:` in one. */
  const scanShort = (text: string, emit: (start: number, end: number) => void) => {
    const check = (start: number, end: number) => {
      const len = end - start;
      if (len < MIN_KNOWN_SECRET || len >= W || !shortRolling.has(tokenHash(text, start, end))) return;
      if (shortConfirmed.has(hmac(`short\0${text.slice(start, end)}`))) emit(start, end);
    };
    let start = 0;
    for (let i = 0; i <= text.length; i += 1) {
      if (i < text.length && !isTokenBoundary(text.charCodeAt(i))) continue;
      if (i - start >= MIN_KNOWN_SECRET) {
        check(start, i);
        for (let k = start; k < i; k += 1) {
          const c = text.charCodeAt(k);
          if (c === 0x3d || c === 0x3a) {
            check(start, k);
            check(k + 1, i);
          }
        }
      }
      start = i + 1;
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
      if (rolling.size > 0) {
        scan(visible, (s, e) => emit(s, e, KNOWN_SECRET_KIND));
        // Accidental encodings (issue 46 A.5): the same windows in the normalized text.
        const normal = normalizeForMatch(visible);
        scan(normal.text, (s, e) => emit(normal.from[s]!, normal.to[e - 1]!, KNOWN_SECRET_KIND));
      }
      if (shortRolling.size > 0) scanShort(visible, (s, e) => emit(s, e, KNOWN_SECRET_KIND));
    },
  };
}
