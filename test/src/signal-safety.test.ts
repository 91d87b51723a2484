// Guards issue 32: the tests that stop, kill or outlive processes (terminal-mcp stop on real and recycled pids, npm start and its SIGKILL, the stdio launcher's detached broker, panes under `script`, a process group, Ctrl-C on a terminal) never signal a process they did not start: run beneath a stand-in for a person's wrapper script, in its process group, the wrapper receives no signal at all.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { repoPath } from './helpers/repo.js';

/** Every test file that signals, stops or outlives a process (the rest of the suite spawns
 * only children it waits for). The whole `npm test` would take several minutes more. */
const RISKY = [
  'test/src/stop-identity.test.ts',
  'test/src/lifecycle-commands.test.ts',
  'test/src/npm-start.test.ts',
  'test/src/broker-lifecycle.test.ts',
  'services/broker/src/input/containment.test.ts',
  'services/broker/src/bin/webauth-cli.test.ts',
  'services/broker/src/effects/proc/process-tree.test.ts',
];
/** The subset takes about two minutes here: room for a machine five times slower. */
const LIMIT_MS = 20 * 60_000;

const root = mkdtempSync(join(tmpdir(), 'tmcp-signals-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('signals', () => {
  it('a wrapper script around the tests that stop and kill processes receives no signal', async () => {
    const log = join(root, 'signals.log');
    const report = join(root, 'report.json');
    const env: NodeJS.ProcessEnv = { ...process.env };
    // The inner run is a run of its own, not a worker of this one.
    for (const name of Object.keys(env)) if (name.startsWith('VITEST') || name.startsWith('TINYPOOL')) delete env[name];
    // detached: the wrapper leads its own process group, as a script started from a shell
    // does; the suite beneath it shares that group.
    const wrapper = spawn(
      process.execPath,
      [repoPath('test/src/helpers/signal-recorder.mjs'), log, process.execPath, repoPath('node_modules/vitest/vitest.mjs'), 'run', '--reporter=dot', '--reporter=json', `--outputFile.json=${report}`, ...RISKY],
      { cwd: repoPath(), env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let output = '';
    const keep = (chunk: Buffer) => {
      output = (output + chunk.toString('utf8')).slice(-64 * 1024);
    };
    wrapper.stdout!.on('data', keep);
    wrapper.stderr!.on('data', keep);
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => wrapper.once('exit', (code, signal) => resolve({ code, signal })));
    const timer = setTimeout(() => {
      // Still our wrapper (not yet reaped): its group is the one it leads.
      if (wrapper.exitCode === null && wrapper.signalCode === null) process.kill(-wrapper.pid!, 'SIGKILL');
    }, LIMIT_MS - 60_000);
    const end = await exited;
    clearTimeout(timer);

    const lines = readFileSync(log, 'utf8').split('\n').filter(Boolean);
    // Killed outright (SIGKILL cannot be recorded), or signalled: either is a failure.
    expect(end.signal, output).toBeNull();
    expect(lines.filter((l) => l.startsWith('signal ')), output).toEqual([]);
    expect(lines.at(-1), output).toBe('exit 0 null');
    const r = JSON.parse(readFileSync(report, 'utf8')) as { numTotalTests: number; numFailedTests: number; testResults: { name: string }[] };
    expect(r.testResults).toHaveLength(RISKY.length);
    expect(r.numTotalTests).toBeGreaterThan(20);
    expect(r.numFailedTests).toBe(0);
  }, LIMIT_MS);
});
