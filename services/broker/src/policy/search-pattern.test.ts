// Guards the search regex rule: only patterns the non-backtracking POSIX engine runs in bounded time reach git grep -E.
import { describe, expect, it } from 'vitest';
import { checkSearchRegex } from './search-pattern.js';

describe('checkSearchRegex', () => {
  it.each([
    'foo',
    '(a+)+$',
    '(a|aa)*b',
    'function [a-zA-Z_]+\\(',
    '[0-9]{1,3}\\.[0-9]{1,3}\\.[0-9]{1,3}\\.[0-9]{1,3}',
    '[]a]+',
    '[[:alpha:]]+_id',
    'x{100}',
    '(ab){10}(cd){10}',
    'a{',
    '\\(literal\\)',
  ])('accepts %j', (pattern) => {
    expect(checkSearchRegex(pattern)).toEqual({ ok: true });
  });

  it.each<[string, RegExp]>([
    ['(a)\\1', /back-references/],
    ['(a*)*\\2', /back-references/],
    ['a{101}', /above 100/],
    ['a{1,1000}', /above 100/],
    ['((a{1,100}){1,100}){1,100}', /too complex/],
    ['(a{60}){60}(b{60}){60}', /too complex/],
    ['(abc', /unbalanced/],
    ['abc)', /unbalanced/],
    ['[abc', /unterminated/],
    ['a\u0001b', /control/],
  ])('refuses %j', (pattern, reason) => {
    const verdict = checkSearchRegex(pattern);
    expect(verdict.ok).toBe(false);
    if (!verdict.ok) expect(verdict.reason).toMatch(reason);
  });
});
