// Guards the note search query: a user's words become quoted FTS5 strings, so no input is query syntax.
import { describe, expect, it } from 'vitest';
import { buildNoteSearchQuery } from './note-search-query.js';

describe('buildNoteSearchQuery', () => {
  it.each([
    ['lưu lại', '"lưu"* "lại"*'],
    ['Đợi', '"dợi"*'],
    ['a OR b', '"a"* "or"* "b"*'],
    ['NEAR(x y)', '"near"* "x"* "y"*'],
    ['title:secret', '"title"* "secret"*'],
    ['"unbalanced', '"unbalanced"*'],
    ['foo*', '"foo"*'],
    ['((( )))', null],
    ['-x +y ^z', '"x"* "y"* "z"*'],
    ['', null],
  ])('%j -> %j', (query, match) => {
    expect(buildNoteSearchQuery(query).match).toBe(match);
  });

  it('uses at most sixteen distinct words, lowercased', () => {
    const q = buildNoteSearchQuery(Array.from({ length: 40 }, (_, i) => `W${i % 20}`).join(' '));
    expect(q.terms).toHaveLength(16);
    expect(q.terms[0]).toBe('w0');
  });
});
