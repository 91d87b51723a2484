import { describe, expect, it } from 'vitest';
import { MATCH_LINES, overlap, resumeIndex } from './line-overlap.js';

const lines = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => `line ${from + i}`);

describe('overlap', () => {
  it('is the longest run that ends the first and starts the second', () => {
    expect(overlap(['a', 'b', 'c'], ['b', 'c', 'd'])).toBe(2);
    expect(overlap(['a', 'b'], ['c'])).toBe(0);
    expect(overlap([], ['a'])).toBe(0);
  });
});

describe('resumeIndex', () => {
  it('starts right after the written lines, wherever the capture begins', () => {
    expect(resumeIndex(lines(1, 20), lines(5, 30), 16)).toBe(16);
    expect(resumeIndex(lines(1, 20), lines(1, 20), 20)).toBe(20);
  });

  it('places repeated output by the row counts, the later place on a tie', () => {
    const written = Array.from({ length: 20 }, () => 'ok');
    const captured = Array.from({ length: 30 }, () => 'ok');
    expect(resumeIndex(written, captured, 27)).toBe(27);
    expect(resumeIndex(written, captured, 8)).toBe(MATCH_LINES);
  });

  it('is null when what was written scrolled away', () => {
    expect(resumeIndex(lines(1, 20), lines(500, 540), 0)).toBeNull();
  });

  it('matches without the last lines when they were redrawn in place', () => {
    const written = [...lines(1, 20), 'progress 10%'];
    expect(resumeIndex(written, [...lines(10, 20), 'progress 100%', 'done'], 12)).toBe(11);
  });

  it('never places by a blank line alone', () => {
    expect(resumeIndex([...lines(1, 10), ''], ['x', '', 'y', ''], 2)).toBeNull();
  });

  it('places by rows alone when nothing was written', () => {
    expect(resumeIndex([], lines(1, 5), 3)).toBe(3);
    expect(resumeIndex([], lines(1, 5), 9)).toBe(5);
  });
});
