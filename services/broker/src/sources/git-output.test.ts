// Guards the git output parsers: hostile file names cannot shift fields, and a patch section whose file cannot be named is withheld.
import { describe, expect, it } from 'vitest';
import { filterPatchSections, parseGrep, parseLog, parseNumstat, parseStatusV2, patchHeaderPath, unquoteGitPath } from './git-output.js';
import { redactLines } from '../policy/source-redaction.js';

describe('patch sections', () => {
  it.each<[string, string | null]>([
    ['diff --git a/src/a.ts b/src/a.ts', 'src/a.ts'],
    ['diff --git a/a b/c b/a b/c', 'a b/c'],
    ['diff --git "a/tab\\there" "b/tab\\there"', 'tab\there'],
    ['diff --git "a/caf\\303\\251" "b/caf\\303\\251"', 'café'],
    ['diff --git a/x b/y', null],
    ['diff --git "a/x" "b/y"', null],
    ['diff --git nonsense', null],
  ])('%s names %j', (header, path) => {
    expect(patchHeaderPath(header)).toBe(path);
  });

  it('withholds sections of refused or unreadable files', () => {
    const patch = [
      'diff --git a/ok.ts b/ok.ts',
      '+fine',
      'diff --git a/.env b/.env',
      '+SECRET=1',
      'diff --git a/x b/y',
      '+unparseable',
      'diff --git a/also-ok.ts b/also-ok.ts',
      '+fine too',
    ].join('\n');
    const out = filterPatchSections(patch, (p) => p !== '.env');
    expect(out.text).toBe(['diff --git a/ok.ts b/ok.ts', '+fine', 'diff --git a/also-ok.ts b/also-ok.ts', '+fine too'].join('\n'));
    expect(out.withheld).toEqual(['.env', '(unreadable path)']);
  });

  it('unquotes only well-formed C strings', () => {
    expect(unquoteGitPath('"a\\"b"')).toBe('a"b');
    expect(unquoteGitPath('"bad\\q"')).toBeNull();
    expect(unquoteGitPath('plain')).toBeNull();
  });
});

describe('NUL-separated records', () => {
  it('reads grep hits whose path holds newlines and colons', () => {
    expect(parseGrep('we\nird:name\x0012\x00text: with: colons\nb.ts\x003\x00x\n')).toEqual([
      { path: 'we\nird:name', line: 12, text: 'text: with: colons' },
      { path: 'b.ts', line: 3, text: 'x' },
    ]);
  });

  it('reads status entries whose paths contain spaces, and renames', () => {
    const text = [
      '# branch.oid abc',
      '# branch.head main',
      '# branch.ab +2 -1',
      '1 .M N... 100644 100644 100644 aaa aaa a file.txt',
      '2 R. N... 100644 100644 100644 aaa aaa R100 new name.txt',
      'old name.txt',
      '? new dir/x',
      '',
    ].join('\0');
    expect(parseStatusV2(text)).toEqual({
      head: 'abc',
      branch: 'main',
      upstream: null,
      ahead: 2,
      behind: 1,
      entries: [
        { kind: 'changed', xy: '.M', path: 'a file.txt', origPath: null },
        { kind: 'renamed', xy: 'R.', path: 'new name.txt', origPath: 'old name.txt' },
        { kind: 'untracked', xy: '??', path: 'new dir/x', origPath: null },
      ],
    });
  });

  it('reads numstat and log records', () => {
    expect(parseNumstat('1\t2\ta b\0-\t-\tbin\0')).toEqual([
      { path: 'a b', added: 1, deleted: 2 },
      { path: 'bin', added: null, deleted: null },
    ]);
    const h = 'a'.repeat(40);
    const log = `${h}\0\0n\0e\0d1\0c\0d2\0subject\0body\n\n\0\n${h}\0${h}\0n\0e\0d1\0c\0d2\0s2\0\0\n`;
    expect(parseLog(log).map((c) => [c.subject, c.body, c.parents.length])).toEqual([
      ['subject', 'body', 0],
      ['s2', '', 1],
    ]);
  });
});

describe('redactLines', () => {
  it('keeps the line count when a private key block is folded by the redactor', () => {
    const lines = ['const a = 1;', '-----BEGIN RSA PRIVATE KEY-----', 'MIIEowIBAAKCAQEAuVy2mZ0eXAMPLEeXAMPLEeXAMPLEeXAMPLE', '-----END RSA PRIVATE KEY-----', 'const b = 2;'];
    const out = redactLines(lines);
    expect(out.lines).toHaveLength(5);
    expect(out.lines[0]).toBe('const a = 1;');
    expect(out.lines[4]).toBe('const b = 2;');
    expect(out.lines.slice(1, 4).join('\n')).not.toContain('MIIEowIBAAKCAQEA');
  });
});
