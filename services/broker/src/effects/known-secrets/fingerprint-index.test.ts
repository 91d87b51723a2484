// Guards the fingerprint index's fast path (issue 46: the probe pass that looks up every eighth window, the bit-array filter in front of the window set, the length mask and boundary table of short values): at every index size, from a few windows to an RSA key and a kube config's 85,000, every indexed window is still found wherever it is printed, and text holding none is left alone.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { KNOWN_SECRET_WINDOW } from '../../policy/known-secrets.js';
import { buildFingerprintIndex } from './fingerprint-index.js';

const W = KNOWN_SECRET_WINDOW;

function spans(index: ReturnType<typeof buildFingerprintIndex>, text: string): [number, number][] {
  const found: [number, number][] = [];
  index.find(text, (start, end) => found.push([start, end]));
  return found;
}

/** Random token characters, as key material and generated passwords are. */
const token = (length: number) => randomBytes(length).toString('base64').replace(/[+/=]/g, 'x').slice(0, length);

describe('fingerprint index fast path', () => {
  it.each([
    ['a handful of windows (smallest filter)', 3, 40],
    ['about 85,000 windows (an RSA key and a kube config)', 40, 2_200],
  ])('finds every sampled window of every secret: %s', (_name, count, length) => {
    const secrets = Array.from({ length: count }, () => token(length));
    const index = buildFingerprintIndex(secrets);
    expect(index.windows).toBeGreaterThanOrEqual(count * (length - W + 1) * 0.99);
    for (const secret of secrets) {
      // Windows at the start, the end and spread through the middle, each printed alone.
      for (let at = 0; at + W <= secret.length; at += Math.max(1, Math.floor(secret.length / 37))) {
        const piece = secret.slice(at, at + W);
        // `;` is in no secret: no window runs on past the piece (matching folds case and drops blanks).
        expect(spans(index, `log: ${piece}; done`)).toEqual([[5, 5 + W]]);
      }
      const last = secret.slice(-W);
      expect(spans(index, `${last}`)).toEqual([[0, W]]);
    }
    // Ordinary text (and text of the same alphabet that is not indexed) passes untouched.
    expect(spans(index, `2026-07-01T12:00:00Z INFO worker-3 processed batch 17 in 431 ms ${token(600)}`)).toEqual([]);
  });

  it('finds a window at every place in a line, however blanks, escapes and case shift it (the probe pass looks only every few characters)', () => {
    const secret = token(64);
    const index = buildFingerprintIndex([secret]);
    for (let at = 0; at + W <= secret.length; at += 5) {
      const piece = secret.slice(at, at + W);
      // Grouped by 4 with a blank, one character as %XX, upper case: the same 16 normalized characters.
      const grouped = piece.match(/.{1,4}/g)!.join(' ');
      const escaped = `${piece.slice(0, 7)}%${piece.charCodeAt(7).toString(16).padStart(2, '0')}${piece.slice(8)}`;
      for (const printed of [piece, grouped, escaped, piece.toUpperCase()]) {
        for (let shift = 0; shift < 2 * W; shift += 1) {
          const prefix = `${'#'.repeat(shift)};`;
          expect(spans(index, `first line\n${prefix}${printed};\nlast line`)).toEqual([[11 + prefix.length, 11 + prefix.length + printed.length]]);
        }
      }
    }
  });

  it('finds short values of each indexed length as whole tokens only, and their parts after = or :', () => {
    const short = ['k3lp-Vox9', 'Qz81-mmW-tt', 'p7Hx-2kLq-9fR1v'];
    const index = buildFingerprintIndex([], short);
    for (const value of short) {
      expect(spans(index, `pw ${value} ok`)).toEqual([[3, 3 + value.length]]);
      expect(spans(index, `DB=${value}`)).toEqual([[3, 3 + value.length]]);
      expect(spans(index, `${value}:rest`)).toEqual([[0, value.length]]);
      expect(spans(index, `(${value})`)).toEqual([[1, 1 + value.length]]);
      expect(spans(index, `x${value}`)).toEqual([]);
    }
    // A length no value has is skipped before hashing; the result is the same.
    expect(spans(index, 'abcdefghijkl mnopqrstu')).toEqual([]);
  });
});
