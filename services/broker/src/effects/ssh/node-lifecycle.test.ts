// Guards the parsing of a node's directory answer (node-lifecycle.ts): one NUL-terminated answer per path, an empty one for "not a directory", and anything else (a missing or extra answer, output without the terminator) is no usable answer.
import { describe, expect, it } from 'vitest';
import { parseRealDirectories } from './node-lifecycle.js';

describe('parseRealDirectories', () => {
  it('reads one answer per path, empty meaning not a directory', () => {
    expect(parseRealDirectories('/srv/work/a\0\0/srv/work\0', 3)).toEqual(['/srv/work/a', null, '/srv/work']);
    expect(parseRealDirectories('\0', 1)).toEqual([null]);
  });

  it('keeps a newline inside a path as part of that path, never a second answer', () => {
    expect(parseRealDirectories('/srv/a\n/srv/b\0/srv\0', 2)).toEqual(['/srv/a\n/srv/b', '/srv']);
  });

  it.each([
    ['/srv/a\0', 2],
    ['/srv/a\0/srv/b\0/srv/c\0', 2],
    ['/srv/a', 1],
    ['', 1],
  ])('refuses %j for %i paths', (stdout, count) => {
    expect(parseRealDirectories(stdout, count)).toBeNull();
  });
});
