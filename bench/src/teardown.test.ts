// A bench run that fails in a section, or is stopped by SIGTERM, leaves no broker, gateway or tmux server running.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { repoPath } from '@terminal-mcp/test';

const MARK = 'BENCH_CLEANUP_TEST_MARK';

/** Live processes (not zombies) whose environment carries `MARK=value`: everything the
 * bench started inherits it (brokers, gateways, tmux servers and their panes). */
function markedProcesses(value: string): string[] {
  const found: string[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      if (/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${name}/stat`, 'utf8'))) continue;
      if (!readFileSync(`/proc/${name}/environ`, 'utf8').split('\0').includes(`${MARK}=${value}`)) continue;
      found.push(`${name} ${readFileSync(`/proc/${name}/cmdline`, 'utf8').replaceAll('\0', ' ').slice(0, 120)}`);
    } catch {
      /* gone meanwhile */
    }
  }
  return found;
}

/** Runs the built bench with `env`; `onOutput` sees stdout and stderr as they come and may
 * signal the bench. Resolves with its exit and output. */
function runBench(args: string[], env: Record<string, string>, onOutput?: (text: string, kill: (s: NodeJS.Signals) => void) => void): Promise<{ code: number | null; signal: NodeJS.Signals | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [repoPath('bench/dist/run.js'), ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const seen = (chunk: Buffer) => {
      output += chunk.toString();
      onOutput?.(output, (s) => child.kill(s));
    };
    child.stdout.on('data', seen);
    child.stderr.on('data', seen);
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, output }));
  });
}

/** Waits (bounded) for every marked process to go: a tmux pane's process may take a moment
 * after its server was killed. */
async function leftAfter(value: string): Promise<string[]> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const left = markedProcesses(value);
    if (left.length === 0 || Date.now() > deadline) return left;
    await new Promise((r) => setTimeout(r, 200));
  }
}

// Fewest calls: what is tested is the cleanup, not the figures.
const QUICK = { BENCH_WARMUP: '1', BENCH_IDLE_SECONDS: '1', BENCH_ITER: '2' };

describe('bench cleanup', () => {
  it('a section that throws after the shared stack is up stops the broker, the HTTP gateway and the tmux server', async () => {
    const mark = randomBytes(6).toString('hex');
    const r = await runBench(['--only', 'idle'], { ...QUICK, [MARK]: mark, BENCH_FAIL_SECTION: 'idle' });
    expect(r.output).toContain('BENCH_FAIL_SECTION=idle');
    expect(r.code).toBe(1);
    expect(await leftAfter(mark)).toEqual([]);
  }, 300_000);

  it('the idle section signs an operator in (the password rules accept it), and SIGTERM during the run stops everything it started', async () => {
    const mark = randomBytes(6).toString('hex');
    let signalled = false;
    // 'idle: first frame' is printed once an operator signed in and a live frame arrived.
    const r = await runBench(['--only', 'idle,live'], { ...QUICK, BENCH_IDLE_SECONDS: '600', [MARK]: mark }, (text, kill) => {
      if (!signalled && text.includes('idle: first frame')) {
        signalled = true;
        kill('SIGTERM');
      }
    });
    expect(signalled, r.output.slice(-2000)).toBe(true);
    expect(r.code).toBe(143);
    expect(await leftAfter(mark)).toEqual([]);
  }, 300_000);
});
