// Guards the time bounds of operator-configured commands (child-bounds.ts) through the real runners: a verifier command that exits at once but leaves a process holding its output is answered with its exit status (before: held until that process ended, and marked timed out); the time limit kills every process the command started, not only the first; a deploy command's server, started on purpose with its output, is answered and left running.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runFixedCommand } from './deploy/run-command.js';
import { runTestCommand } from './verifier/verifier-runner.js';

let dir: string;
const started: number[] = [];
const pidsIn = (file: string) => readFileSync(join(dir, file), 'utf8').trim().split('\n').map(Number);
/** Alive and not a zombie. */
const running = (pid: number) => existsSync(`/proc/${pid}`) && !/^\d+ \(.*\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'tmcp-child-bounds-'));
});

afterAll(() => {
  for (const pid of started) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone already
    }
  }
  rmSync(dir, { recursive: true, force: true });
});

describe('operator-configured commands are bounded at their exit', () => {
  it('a verifier command that exits 0 and leaves a process holding its output passes, not TIMEOUT', async () => {
    const run = await runTestCommand(dir, ['sh', '-c', 'sleep 600 & echo $! > left; echo done'], 120_000);
    started.push(...pidsIn('left'));
    expect(run).toEqual({ exitCode: 0, timedOut: false, spawnFailed: false });
  });

  it('the time limit ends every process the command started', async () => {
    const run = await runTestCommand(dir, ['sh', '-c', 'sleep 600 & echo $! > group; sleep 601 & echo $! >> group; wait'], 1_000);
    const pids = pidsIn('group');
    started.push(...pids);
    expect(run).toEqual({ exitCode: null, timedOut: true, spawnFailed: false });
    await vi.waitFor(() => expect(pids.filter(running)).toEqual([]), { timeout: 60_000, interval: 50 });
  });

  it("a deploy command's server, started with its output, is answered and left running", async () => {
    const run = await runFixedCommand(['sh', '-c', 'sleep 600 & echo $! > server; echo started'], { cwd: dir, timeoutMs: 120_000 });
    const [server] = pidsIn('server');
    started.push(server!);
    expect(run).toMatchObject({ exitCode: 0, timedOut: false, output: 'started\n' });
    expect(running(server!)).toBe(true);
  });
});
