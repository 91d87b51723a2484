// Guards the RE2 -> JavaScript translation the secret rules are generated with (scripts/update-secret-rules.mjs): inline flags become explicit classes with the same meaning, and anything untranslatable fails loudly.
import { describe, expect, it } from 'vitest';
import { re2ToJs } from './re2-to-js.mjs';

const test = (re2: string, text: string) => {
  const { source, flags } = re2ToJs(re2);
  return new RegExp(source, flags).test(text);
};

describe('re2ToJs', () => {
  it.each([
    // [RE2 pattern, text, matches]
    ['(?i)secret', 'SeCrEt', true],
    ['\\b(p8e-(?i)[a-z0-9]{4})', 'p8e-AbC1', true],
    ['\\b(p8e-(?i)[a-z0-9]{4})', 'P8E-abc1', false], // (?i) starts after the prefix
    ['(?i)(?-i:[Aa]pi|API)key', 'APIKEY', true],
    ['(?i)(?-i:[Aa]pi|API)key', 'aPIkey', false],
    ['s\\.(?i:[a-z0-9]{4})', 's.AbC1', true],
    ['a(?s:.)b', 'a\nb', true],
    ['a.b', 'a\nb', false],
    ['x\\z', 'x', true],
    ['x\\z', 'x\n', false],
    ['pat[[:alnum:]]{3}', 'patA1b', true],
    ['[^]]+', 'abc', true],
    ['(?P<k>ab)c', 'abc', true],
    ['\\x60', '`', true],
  ])('%s on %j -> %s', (re2, text, expected) => {
    expect(test(re2, text)).toBe(expected);
  });

  it('refuses what it cannot translate', () => {
    expect(() => re2ToJs('\\pL+')).toThrow();
    expect(() => re2ToJs('(?m)^x')).toThrow();
  });
});
