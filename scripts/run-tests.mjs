#!/usr/bin/env node
// Runs the whole vitest suite and ends with one plain summary line
// ("tests: N passed, N failed, N skipped") that CI can read in any language.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = mkdtempSync(join(tmpdir(), 'tmcp-vitest-'));
const report = join(out, 'report.json');
const env = { ...process.env };
delete env.TMUX; // tests must never follow $TMUX to the host's server
delete env.TMUX_PANE;
const run = spawnSync(
  process.execPath,
  [join(root, 'node_modules/vitest/vitest.mjs'), 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${report}`, ...process.argv.slice(2)],
  { cwd: root, stdio: 'inherit', env },
);
let summary = 'tests: report missing';
try {
  const r = JSON.parse(readFileSync(report, 'utf8'));
  const skipped = (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0);
  summary = `tests: ${r.numPassedTests} passed, ${r.numFailedTests} failed, ${skipped} skipped`;
  if (r.numTotalTests === 0) {
    console.log(summary);
    console.error('no test ran');
    process.exit(1);
  }
} catch {
  /* vitest crashed before writing its report */
}
rmSync(out, { recursive: true, force: true });
console.log(summary);
process.exit(run.status ?? 1);
