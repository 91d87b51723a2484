// The bench judges a ratio target on the median of rounds: each round is the ratio of two p50s over its own consecutive samples.
import { describe, expect, it } from 'vitest';
import { roundedRatio, summarize } from './stats.js';

describe('roundedRatio', () => {
  it('with one round is the ratio of the two p50s', () => {
    const ours = [1, 2, 3, 4, 5];
    const base = [10, 20, 30, 40, 50];
    expect(roundedRatio(ours, base, 1)).toEqual({ median: summarize(ours).p50 / summarize(base).p50, rounds: [0.1], p50s: [{ ours: 3, base: 30 }] });
  });

  it('cuts the samples into consecutive rounds and takes the median of their ratios', () => {
    // Round 1: ours 1 vs 4 (0.25); round 2: 3 vs 4 (0.75); round 3: 2 vs 4 (0.5).
    const ours = [1, 1, 1, 3, 3, 3, 2, 2, 2];
    const base = [4, 4, 4, 4, 4, 4, 4, 4, 4];
    expect(roundedRatio(ours, base, 3)).toEqual({ median: 0.5, rounds: [0.25, 0.75, 0.5], p50s: [{ ours: 1, base: 4 }, { ours: 3, base: 4 }, { ours: 2, base: 4 }] });
  });

  it('a slow stretch moves one round, not the median', () => {
    const ours = [...Array(50).fill(1), ...Array(50).fill(9), ...Array(50).fill(1)];
    const base = Array(150).fill(2);
    const r = roundedRatio(ours, base, 3);
    expect(r.rounds).toEqual([0.5, 4.5, 0.5]);
    expect(r.median).toBe(0.5);
  });

  it('an even count of rounds takes the mean of the middle two; the last round keeps the remainder', () => {
    const ours = [1, 1, 3, 3, 3];
    const base = [2, 2, 2, 2, 2];
    expect(roundedRatio(ours, base, 2)).toEqual({ median: 1, rounds: [0.5, 1.5], p50s: [{ ours: 1, base: 2 }, { ours: 3, base: 2 }] });
  });

  it('never makes more rounds than samples, nor fewer than one', () => {
    expect(roundedRatio([1, 2], [2, 4], 10).rounds).toHaveLength(2);
    expect(roundedRatio([1, 2], [2, 4], 0).rounds).toHaveLength(1);
  });
});
