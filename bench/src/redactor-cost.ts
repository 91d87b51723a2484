/**
 * The redactor's own cost per 200 lines (issue 25): `redactSecrets` on three 200-line
 * texts — a plain log, log and config lines with secrets among them, and key material
 * (a key printed through `grep -H` and `xxd`) — in this build, and, when
 * BENCH_REDACT_BEFORE names another build's `services/broker/dist/policy/redact.js`
 * (an older checkout, built), in that one too, side by side in the same process.
 */
import { repoPath } from '@terminal-mcp/test';
import { pathToFileURL } from 'node:url';
import { summarize, time, type Stats } from './stats.js';

type Redact = (text: string, options?: { keepLines?: boolean }) => { text: string; count: number };

const LINES = 200;

function workloads(): { name: string; text: string }[] {
  const plain = Array.from({ length: LINES }, (_, i) => `2026-07-01T12:00:${String(i % 60).padStart(2, '0')}Z INFO worker-${i % 7} processed batch ${i} in ${(i * 37) % 1000} ms (queue depth ${i % 13})`);
  const mixed = Array.from({ length: LINES }, (_, i) =>
    i % 10 === 0
      ? `export API_TOKEN_${i}=ghp_${'Ab3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6k'.slice(0, 36)}`
      : i % 10 === 5
        ? `DEBUG connecting to postgres://app:Qw3rt${i}yUi0p@db.internal:5432/app with key=AKIA${'Z2Y3X4W5V6U7T8S9'}`
        : `npm WARN deprecated package-${i}@1.0.${i}: this module is not supported; access denied for key ${i}`,
  );
  const body = Array.from({ length: 50 }, (_, i) => `/home/op/.ssh/id_rsa:${Buffer.from(`${i}`.repeat(48)).toString('base64').slice(0, 64)}`);
  const dump = Array.from({ length: 150 }, (_, i) => `${(i * 16).toString(16).padStart(8, '0')}: 4d49 4945 6f77 4942 4141 4b43 4151 4541  MIIEowIBAAKCAQEA`);
  return [
    { name: 'plain log', text: plain.join('\n') },
    { name: 'log and config with secrets', text: mixed.join('\n') },
    { name: 'key material (grep -H, xxd)', text: [...body, ...dump].join('\n') },
  ];
}

async function measure(redact: Redact, text: string, iterations: number): Promise<Stats> {
  for (let i = 0; i < 20; i += 1) redact(text, { keepLines: true });
  const samples: number[] = [];
  for (let i = 0; i < iterations; i += 1) await time(samples, async () => redact(text, { keepLines: true }));
  return summarize(samples);
}

async function load(path: string): Promise<Redact> {
  return ((await import(pathToFileURL(path).href)) as { redactSecrets: Redact }).redactSecrets;
}

/** Prints one row per workload: this build's p50/p99, and the other build's with the ratio. */
export async function benchRedactorCost(iterations: number): Promise<{ name: string; after: Stats; before: Stats | null }[]> {
  const after = await load(repoPath('services/broker/dist/policy/redact.js'));
  const beforePath = process.env.BENCH_REDACT_BEFORE;
  const before = beforePath ? await load(beforePath) : null;
  const rows: { name: string; after: Stats; before: Stats | null }[] = [];
  for (const w of workloads()) {
    const a = await measure(after, w.text, iterations);
    const b = before ? await measure(before, w.text, iterations) : null;
    rows.push({ name: w.name, after: a, before: b });
  }
  return rows;
}
