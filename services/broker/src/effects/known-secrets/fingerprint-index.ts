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
import { KNOWN_SECRET_KIND, KNOWN_SECRET_WINDOW, type KnownSecretFinder } from '../../policy/known-secrets.js';

const W = KNOWN_SECRET_WINDOW;

export interface FingerprintIndex extends KnownSecretFinder {
  /** Windows indexed (for logs and tests; no secret material). */
  readonly windows: number;
}

export function buildFingerprintIndex(forms: readonly string[]): FingerprintIndex {
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

  for (const form of forms) {
    let h = 0;
    for (let i = 0; i < form.length; i += 1) {
      h = (Math.imul(h, base) + code(form.charCodeAt(i))) >>> 0;
      if (i >= W) h = (h - Math.imul(outFactor, code(form.charCodeAt(i - W)))) >>> 0;
      if (i >= W - 1) {
        rolling.add(h);
        confirmed.add(hmac(form.slice(i - W + 1, i + 1)));
      }
    }
  }

  return {
    windows: confirmed.size,
    find(visible, emit) {
      if (rolling.size === 0) return;
      let spanStart = -1;
      let spanEnd = -1;
      let h = 0;
      let lineStart = 0;
      for (let i = 0; i < visible.length; i += 1) {
        const c = visible.charCodeAt(i);
        if (c === 0x0a) {
          h = 0;
          lineStart = i + 1;
          continue;
        }
        h = (Math.imul(h, base) + code(c)) >>> 0;
        if (i - lineStart >= W) h = (h - Math.imul(outFactor, code(visible.charCodeAt(i - W)))) >>> 0;
        if (i - lineStart < W - 1 || !rolling.has(h)) continue;
        const start = i - W + 1;
        if (!confirmed.has(hmac(visible.slice(start, i + 1)))) continue;
        if (spanStart >= 0 && start <= spanEnd) spanEnd = i + 1;
        else {
          if (spanStart >= 0) emit(spanStart, spanEnd, KNOWN_SECRET_KIND);
          spanStart = start;
          spanEnd = i + 1;
        }
      }
      if (spanStart >= 0) emit(spanStart, spanEnd, KNOWN_SECRET_KIND);
    },
  };
}
