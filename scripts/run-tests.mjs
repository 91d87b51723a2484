#!/usr/bin/env node
// Runs the whole vitest suite and ends with one plain summary line that CI can read in any
// language, and that always agrees with the exit status:
//   tests: N passed, N failed, N skipped; leftovers: none
// "failed" counts failed tests plus every test file that failed outside its tests (a
// beforeAll that threw, an import error) and errors vitest reports outside any test; the
// exit status is non-zero exactly when the line shows a failure or a leftover.
// Leftovers (scripts/lib/leftovers.mjs) are the processes, tmux sockets and temporary
// files the run left behind; they are named above the line.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { finishRun, startRun } from './lib/leftovers.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const run = startRun(root);
const report = join(run.dir, 'report.json');
const env = { ...process.env, ...run.env };
delete env.TMUX; // tests must never follow $TMUX to the host's server
delete env.TMUX_PANE;

// Asynchronous, so this process keeps handling signals: Ctrl-C still reaches vitest
// (same process group) and the leftover check and cleanup below still run.
const child = spawn(process.execPath, [join(root, 'node_modules/vitest/vitest.mjs'), 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${report}`, ...process.argv.slice(2)], {
  cwd: root,
  stdio: 'inherit',
  env,
});
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal));
const status = await new Promise((resolve) => child.once('exit', (code) => resolve(code ?? 1)));

let counts;
const notes = [];
try {
  const r = JSON.parse(readFileSync(report, 'utf8'));
  // A file whose tests all passed or were skipped but which failed as a whole.
  const fileFailures = r.testResults.filter((f) => f.status === 'failed' && !f.assertionResults.some((t) => t.status === 'failed'));
  for (const f of fileFailures) notes.push(`failed outside its tests: ${relative(root, f.name)}${f.message ? ` (${f.message.split('\n')[0].slice(0, 200)})` : ''}`);
  let failed = r.numFailedTests + fileFailures.length;
  if (status !== 0 && failed === 0) {
    notes.push(`vitest exited with status ${status} with no failed test: an error outside any test (see "Errors" above)`);
    failed = 1;
  }
  counts = { passed: r.numPassedTests, failed, skipped: (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0), total: r.numTotalTests };
} catch {
  notes.push(`vitest wrote no report (exit status ${status}): it crashed or was stopped`);
}

const leftovers = await finishRun(run);
for (const line of leftovers) console.log(`leftover: ${line}`);
for (const line of notes) console.log(line);
if (counts?.total === 0) console.log('no test ran');

const tests = counts ? `tests: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped` : 'tests: report missing';
console.log(`${tests}; leftovers: ${leftovers.length === 0 ? 'none' : leftovers.length}`);
const ok = counts !== undefined && counts.total > 0 && counts.failed === 0 && leftovers.length === 0;
process.exit(ok ? 0 : 1);
