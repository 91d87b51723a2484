#!/usr/bin/env node
// Runs the whole vitest suite and ends with one plain summary line that CI can read in any
// language, and that always agrees with the exit status:
//   tests: N passed, N failed, N skipped, N failed files; leftovers: none
// "failed" counts failed tests; "failed files" counts every test file that failed, whether
// in a test or outside its tests (a beforeAll that threw, an import error); an error vitest
// reports outside any file adds ", 1 error outside the tests". The exit status is non-zero
// exactly when the line shows a failure, a failed file, such an error or a leftover.
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
  const failedFiles = r.testResults.filter((f) => f.status === 'failed');
  for (const f of failedFiles) {
    // A file whose tests all passed or were skipped but which failed as a whole.
    if (f.assertionResults.some((t) => t.status === 'failed')) continue;
    notes.push(`failed outside its tests: ${relative(root, f.name)}${f.message ? ` (${f.message.split('\n')[0].slice(0, 200)})` : ''}`);
  }
  const outside = status !== 0 && r.numFailedTests === 0 && failedFiles.length === 0 ? 1 : 0;
  if (outside) notes.push(`vitest exited with status ${status} with no failed test or file: an error outside the tests (see "Errors" above)`);
  counts = { passed: r.numPassedTests, failed: r.numFailedTests, failedFiles: failedFiles.length, outside, skipped: (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0), total: r.numTotalTests };
  // The slowest tests, so one that creeps towards its limit is seen before it fails.
  const timed = r.testResults.flatMap((f) => f.assertionResults.map((t) => ({ ms: t.duration ?? 0, name: `${relative(root, f.name)} > ${t.title}` })));
  console.log('slowest tests:');
  for (const t of timed.sort((a, b) => b.ms - a.ms).slice(0, 10)) console.log(`  ${(t.ms / 1000).toFixed(1).padStart(6)} s  ${t.name.slice(0, 160)}`);
} catch {
  notes.push(`vitest wrote no report (exit status ${status}): it crashed or was stopped`);
}

const leftovers = await finishRun(run);
for (const line of leftovers) console.log(`leftover: ${line}`);
for (const line of notes) console.log(line);
if (counts?.total === 0) console.log('no test ran');

const plural = (n, one, many) => `${n} ${n === 1 ? one : many}`;
const tests = counts
  ? `tests: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped, ${plural(counts.failedFiles, 'failed file', 'failed files')}${counts.outside ? ', 1 error outside the tests' : ''}`
  : 'tests: report missing';
console.log(`${tests}; leftovers: ${leftovers.length === 0 ? 'none' : leftovers.length}`);
const ok = counts !== undefined && counts.total > 0 && counts.failed === 0 && counts.failedFiles === 0 && counts.outside === 0 && leftovers.length === 0;
process.exit(ok ? 0 : 1);
