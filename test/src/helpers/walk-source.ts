import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Every source file (ts, js, mjs, svelte) under `dir`, tests left out; none when `dir` is missing. */
export function walkSource(dir: string, out: string[] = []): string[] {
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return out;
  }
  for (const name of entries) {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) walkSource(full, out);
    else if (/\.(ts|js|mjs|svelte)$/.test(name) && !/\.test\.ts$/.test(name)) out.push(full);
  }
  return out;
}
