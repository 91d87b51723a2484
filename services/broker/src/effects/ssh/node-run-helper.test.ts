// Guards that the node run helper's `cat` never outlives the helper (issue 44 item 5): however the helper ends (its channel closed, or SIGKILL where no trap runs) its copier ends too and nothing of the run is left running on the node; the helper still relays status bytes and acks while it lives.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { closeSync, existsSync, openSync, readdirSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '../../../../../test/src/helpers/wait-for.js';
import { NODE_RUN_HELPER } from './node-run-fifos.js';

/** The pids whose parent is `ppid` and whose command is `comm` (read from /proc). */
function childrenNamed(ppid: number, comm: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const close = stat.lastIndexOf(')');
      const name = stat.slice(stat.indexOf('(') + 1, close);
      const parent = Number(stat.slice(close + 2).split(' ')[1]);
      if (parent === ppid && name === comm) found.push(Number(entry));
    } catch {
      // Gone meanwhile.
    }
  }
  return found;
}

const alive = (pid: number) => {
  try {
    // A zombie has no cmdline left: it is gone for this purpose.
    return readFileSync(`/proc/${pid}/cmdline`).length > 0;
  } catch {
    return false;
  }
};

const started: { helper: ChildProcessWithoutNullStreams; cat: number; dir: string }[] = [];

/** Runs the helper as the node's shell would (`sh -c`), and waits for its `dir` line. */
async function startHelper(shell: string): Promise<{ helper: ChildProcessWithoutNullStreams; dir: string; cat: number; out: () => string }> {
  const helper = spawn(shell, ['-c', NODE_RUN_HELPER], { stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  helper.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
  const dir = await waitFor('the dir line', () => /^dir (\S+)\n/.exec(out)?.[1]);
  const cat = await waitFor('its cat', () => childrenNamed(helper.pid!, 'cat')[0]);
  started.push({ helper, cat, dir });
  return { helper, dir, cat, out: () => out };
}

afterEach(() => {
  for (const { helper, cat, dir } of started.splice(0)) {
    helper.kill('SIGKILL');
    // A SIGKILLed helper runs no trap: its (empty, private) directory stays behind.
    rmSync(dir, { recursive: true, force: true });
    try {
      process.kill(cat, 'SIGKILL');
    } catch {
      // Already gone (the point of the test).
    }
  }
});

describe.each(['sh', 'bash'])('the node run helper under %s', (shell) => {
  it('relays what the status FIFO gets, and ends its cat and removes its FIFOs when its channel closes', async () => {
    const { helper, dir, cat, out } = await startHelper(shell);
    const fd = openSync(`${dir}/status`, 'w');
    writeSync(fd, '0 7\n');
    closeSync(fd);
    await waitFor('the status relayed', () => out().includes('0 7\n') || undefined);
    // A writer came and went: cat still runs (the helper holds the FIFO open).
    expect(alive(cat)).toBe(true);
    helper.stdin.end();
    await waitFor('the helper and its cat gone', () => (!alive(helper.pid!) && !alive(cat)) || undefined);
    expect(existsSync(dir)).toBe(false);
  });

  it('ends its cat when the helper itself is SIGKILLed (no trap runs)', async () => {
    const { helper, cat } = await startHelper(shell);
    helper.kill('SIGKILL');
    await waitFor('the orphaned cat to end by itself', () => !alive(cat) || undefined, 10_000);
  });
});
