/** Latency statistics for the bench: medians and tails, not means (timings are skewed). */
export interface Stats {
  n: number;
  p50: number;
  p99: number;
  min: number;
  max: number;
}

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

export function summarize(samples: readonly number[]): Stats {
  const sorted = [...samples].sort((a, b) => a - b);
  return { n: sorted.length, p50: percentile(sorted, 50), p99: percentile(sorted, 99), min: sorted[0] ?? NaN, max: sorted[sorted.length - 1] ?? NaN };
}

export async function time<T>(samples: number[], fn: () => Promise<T>): Promise<T> {
  const start = process.hrtime.bigint();
  const result = await fn();
  samples.push(Number(process.hrtime.bigint() - start) / 1e6);
  return result;
}

/** A ratio of our p50 to the baseline's, judged over rounds: the samples of both (taken
 * interleaved, one of each per iteration) cut into `rounds` equal consecutive runs, the
 * ratio of the two p50s in each, and their median. One run's ratio swings by about ±0.06
 * with the machine's state; the rounds show the spread and the median is what a target is
 * judged on. With one round it is the plain ratio of the p50s. */
export interface RoundedRatio {
  median: number;
  rounds: number[];
  /** Each round's p50s, ours and the baseline's (ms): whether a ratio moved because we
   * did or because the baseline did. */
  p50s: { ours: number; base: number }[];
}

export function roundedRatio(ours: readonly number[], base: readonly number[], rounds: number): RoundedRatio {
  const n = Math.min(ours.length, base.length);
  const count = Math.max(1, Math.min(Math.floor(rounds), n));
  const size = Math.floor(n / count);
  const ratios: number[] = [];
  const p50s: RoundedRatio['p50s'] = [];
  for (let r = 0; r < count; r++) {
    const from = r * size;
    const to = r === count - 1 ? n : from + size;
    const round = { ours: summarize(ours.slice(from, to)).p50, base: summarize(base.slice(from, to)).p50 };
    p50s.push(round);
    ratios.push(round.ours / round.base);
  }
  const sorted = [...ratios].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  const median = sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  return { median, rounds: ratios, p50s };
}
