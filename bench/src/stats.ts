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
