// Guards read access: fnmatch-style whitelist matching (literal metacharacters, no regex injection, no blow-up) and sensitive names needing an exact literal entry.
import { describe, expect, it } from 'vitest';
import { decideReadAccess, isSensitiveName, matchesAny, matchesGlob, sensitiveNameForm } from './access.js';

describe('matchesGlob', () => {
  it.each([
    // pattern, name, expected
    ['claude-*', 'claude-main', true],
    ['claude-*', 'claude-', true],
    ['claude-*', 'Claude-main', false], // case-sensitive
    ['claude-*', 'xclaude-main', false], // whole string, anchored at the start
    ['*-main', 'claude-main', true],
    ['*-main', 'claude-main-2', false], // anchored at the end
    ['*', '', true],
    ['*', 'anything at all', true],
    ['', '', true],
    ['', 'a', false],
    ['a?c', 'abc', true],
    ['a?c', 'ac', false],
    ['a?c', 'abbc', false],
    ['?', 'é', true], // one character, not one UTF-16 unit
    ['??', '🙂', false],
    ['test-[abc]', 'test-b', true],
    ['test-[abc]', 'test-d', false],
    ['test-[a-c]', 'test-c', true],
    ['test-[a-c]', 'test-C', false],
    ['test-[!abc]', 'test-d', true],
    ['test-[!abc]', 'test-a', false],
    ['test-[!a-c]x', 'test-zx', true],
    ['run[0-9][0-9]', 'run42', true],
    ['run[0-9][0-9]', 'run4x', false],
    ['[]x]', ']', true], // ] first in a class is a member
    ['[!]x]', 'y', true],
    ['[a-]', '-', true], // - last in a class is a member
    ['[^a]', '^', true], // ^ is literal, not negation (fnmatch)
    ['[^a]', 'b', false],
    ['[z-a]', 'm', false], // inverted range matches nothing
    ['build[1', 'build[1', true], // unclosed [ is literal
    ['build[1', 'build1', false],
    ['a*b*c', 'aXXbYYc', true],
    ['a*b*c', 'aXXbYY', false],
    ['**a', 'xxa', true],
  ])('matchesGlob(%j, %j) is %s', (pattern, name, expected) => {
    expect(matchesGlob(pattern, name)).toBe(expected);
  });

  it.each([
    // Regex metacharacters in patterns and names are literal characters.
    ['a.b', 'a.b', true],
    ['a.b', 'axb', false],
    ['a+', 'a+', true],
    ['a+', 'aa', false],
    ['(x)', '(x)', true],
    ['(x)', 'x', false],
    ['a$', 'a$', true],
    ['^a', '^a', true],
    ['^a', 'a', false],
    ['a|b', 'a', false],
    ['a|b', 'a|b', true],
    ['\\d', '\\d', true],
    ['\\d', '1', false],
    ['x{2}', 'xx', false],
    ['.*', 'anything', false],
    ['.*', '.*', true],
  ])('treats %j literally against %j (%s)', (pattern, name, expected) => {
    expect(matchesGlob(pattern, name)).toBe(expected);
  });

  it.each([
    ['*a*a*a*a*a*a*a*a*b', 'a'.repeat(5000)],
    ['*?*?*?*?*?*?*?*?*!', 'x'.repeat(5000)],
    ['*[a-z]*[a-z]*[a-z]*[a-z]*1', 'q'.repeat(5000)],
  ])('fails %j quickly on a long non-matching name (no catastrophic backtracking)', (pattern, name) => {
    const started = performance.now();
    expect(matchesGlob(pattern, name)).toBe(false);
    expect(performance.now() - started).toBeLessThan(2000);
  });
});

describe('matchesAny', () => {
  it.each([
    [[], 'x', false],
    [['a-*', 'b-*'], 'b-1', true],
    [['a-*', 'b-*'], 'c-1', false],
    [['exact'], 'exact', true],
  ])('matchesAny(%j, %j) is %s', (patterns, name, expected) => {
    expect(matchesAny(patterns, name)).toBe(expected);
  });
});

describe('isSensitiveName', () => {
  it.each([
    ['root', true],
    ['ROOT-shell', true],
    ['my-ssh-tunnel', true],
    ['Password-Manager', true],
    ['secret-stuff', true],
    ['prod-database', true],
    ['claude-main', false],
    ['roo', false],
    ['agent-1', false],
    ['ro-ot-canal', true],
    // Hidden spellings: width, invisible characters, case, separators, lookalikes.
    ['ｒoot', true], // fullwidth r (NFKC)
    ['ｒｏｏｔ-shell', true],
    ['𝐫𝐨𝐨𝐭', true], // mathematical bold (NFKC)
    ['ro\u200bot', true], // zero-width space
    ['ro\u00adot', true], // soft hyphen
    ['ro\u2060ot', true], // word joiner
    ['s\ufe0fsh', true], // variation selector
    ['ROOT', true],
    ['r-o-o-t', true],
    ['r_o_o_t', true],
    ['r.o.o.t', true],
    ['r o o t', true],
    ['s-s-h', true],
    ['pass_word', true],
    ['data base', true],
    ['sѕh', true], // Cyrillic dze
    ['rооt', true], // Cyrillic o
    ['ѕесrеt', true], // Cyrillic s, e, c, e
    ['rοοt', true], // Greek omicron
    // Known false positive of separator folding: neighbours join.
    ['class-h', true],
    // Not covered (documented): digits for letters, other scripts' lookalikes.
    ['r00t', false],
  ])('isSensitiveName(%j) is %s', (name, expected) => {
    expect(isSensitiveName(name)).toBe(expected);
  });

  it('normalises to letters and digits only', () => {
    expect(sensitiveNameForm('Ｒo\u200bo-t_1')).toBe('root1');
  });
});

describe('remembered answers (parsed patterns, judged names)', () => {
  // Both are memoised by the exact string, bounded and cleared when full: the answer to a
  // pattern or name must not depend on what was asked before, nor on a clear in between.
  it('gives every pattern its own answer, before and after the memo fills and clears', () => {
    const ask = () => Array.from({ length: 1500 }, (_, i) => [matchesGlob(`p${i}-*`, `p${i}-x`), matchesGlob(`p${i}-*`, `p${i + 1}-x`), matchesGlob(`[!p]${i}`, `q${i}`)]);
    const first = ask();
    expect(first.every(([own, other, negated]) => own && !other && negated)).toBe(true);
    expect(ask()).toEqual(first);
  });

  it('judges every name by itself, before and after the memo fills and clears', () => {
    const ask = () => Array.from({ length: 5000 }, (_, i) => [isSensitiveName(`agent-${i}`), isSensitiveName(`agent-${i}-ｒｏｏｔ`), isSensitiveName(`agent-${i}-r00t`)]);
    const first = ask();
    expect(first.every(([plain, root, digits]) => !plain && root && !digits)).toBe(true);
    expect(ask()).toEqual(first);
  });

  it('a name that differs from a judged one only in case or width is judged afresh', () => {
    expect(isSensitiveName('build-ssh')).toBe(true);
    expect(isSensitiveName('build-SSH')).toBe(true);
    expect(isSensitiveName('build-sh')).toBe(false);
    expect(matchesGlob('Build-*', 'build-1')).toBe(false);
    expect(matchesGlob('build-*', 'build-1')).toBe(true);
  });
});

describe('decideReadAccess', () => {
  const on = (allowedPatterns: string[]) => ({ terminalRead: true, allowedPatterns });

  it.each([
    // policy, name, allowed, reason
    [{ terminalRead: false, allowedPatterns: ['*'] }, 'claude-1', false, 'READ_DISABLED'],
    [{ terminalRead: false, allowedPatterns: ['root'] }, 'root', false, 'READ_DISABLED'],
    [on([]), 'claude-1', false, 'NOT_ALLOWED'],
    [on(['codex-*']), 'claude-1', false, 'NOT_ALLOWED'],
    [on(['claude-*']), 'claude-1', true, 'PATTERN'],
    [on(['claude-1']), 'claude-1', true, 'LITERAL'],
    [on(['build[1]']), 'build[1]', true, 'LITERAL'], // literal entry wins over glob reading
    [on(['*']), 'anything', true, 'PATTERN'],
    // Sensitive names: no glob admits them, not even `*`.
    [on(['*']), 'root', false, 'SENSITIVE_NEEDS_LITERAL'],
    [on(['claude-*']), 'claude-ssh', false, 'SENSITIVE_NEEDS_LITERAL'],
    [on(['*secret*']), 'my-secret', false, 'SENSITIVE_NEEDS_LITERAL'],
    [on(['prod-databas?']), 'prod-database', false, 'SENSITIVE_NEEDS_LITERAL'],
    [on(['claude-ssh']), 'claude-ssh', true, 'LITERAL'],
    [on(['*', 'root']), 'root', true, 'LITERAL'],
    [on(['Root']), 'root', false, 'NOT_ALLOWED'], // literal comparison is exact
    [on(['codex-*']), 'root', false, 'NOT_ALLOWED'], // not matched at all: plain refusal
  ])('%j / %j => allowed=%s (%s)', (policy, name, allowed, reason) => {
    expect(decideReadAccess(policy, name)).toEqual({ allowed, reason });
  });
});
