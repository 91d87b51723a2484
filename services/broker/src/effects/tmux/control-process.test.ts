// A control process reports its end exactly once (also when it cannot be started), keeps only the first 2,000 characters of stderr, survives writes after the child died, and is stopped by EOF, then SIGTERM, then SIGKILL.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { waitFor } from '../../../../../test/src/helpers/wait-for.js';
import { spawnControlProcess, type ControlProcessOptions } from './control-process.js';

/** A control process running a shell script instead of tmux. */
function shell(script: string, extra: Partial<ControlProcessOptions> = {}) {
  const ends: { why: string; startFailed: boolean }[] = [];
  let out = '';
  const proc = spawnControlProcess({
    tmuxPath: '/bin/sh',
    args: ['-c', script],
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
    onData: (chunk) => {
      out += chunk;
    },
    onEnd: (why, startFailed) => ends.push({ why, startFailed }),
    ...extra,
  });
  return { proc, ends, out: () => out };
}

describe('spawnControlProcess', () => {
  it('delivers stdout, takes coalesced writes, and ends once with the stderr text', async () => {
    const { proc, ends, out } = shell('read a; read b; echo "got $a $b"; echo "bye from stderr" >&2');
    proc.write('one\n');
    proc.write('two\n');
    await proc.exited;
    expect(out()).toBe('got one two\n');
    expect(ends).toEqual([{ why: 'bye from stderr', startFailed: false }]);
  });

  it('says how it ended when stderr is empty', async () => {
    const { proc, ends } = shell('exit 3');
    await proc.exited;
    expect(ends).toEqual([{ why: 'tmux control client exited (code 3)', startFailed: false }]);
  });

  it('keeps only the first 2,000 characters of stderr', async () => {
    const { proc } = shell('i=0; while [ $i -lt 200 ]; do echo "0123456789012345678901234567890123456789" >&2; i=$((i+1)); done');
    await proc.exited;
    expect(proc.stderr()).toHaveLength(2_000);
  });

  it('ignores writes after the child is gone (EPIPE)', async () => {
    const { proc, ends } = shell('exec 0<&-; exit 0');
    await proc.exited;
    for (let i = 0; i < 50; i++) proc.write('x'.repeat(70_000));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(ends).toHaveLength(1);
  });

  it('reports a binary that cannot be started as startFailed, once', async () => {
    const { proc, ends } = shell('', { tmuxPath: '/nonexistent/tmux' });
    await proc.exited;
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(ends).toHaveLength(1);
    expect(ends[0]?.startFailed).toBe(true);
    await proc.stop(10); // harmless
  });

  // The children below print a line first: tmux writes to a control client only once it
  // is identified, and stop() never ends a client before that.
  it('stop() closes stdin first: a child that exits on EOF needs no signal', async () => {
    const { proc, ends, out } = shell('echo identified; cat >/dev/null; echo eof-seen >&2');
    await waitFor('the first output', () => out() !== '', 60_000, 20);
    await proc.stop(30_000);
    expect(ends).toEqual([{ why: 'eof-seen', startFailed: false }]);
  });

  it('stop() escalates to SIGTERM and then SIGKILL for a child that ignores both EOF and SIGTERM', async () => {
    const { proc, ends, out } = shell('trap "" TERM; echo identified; exec sleep 30');
    await waitFor('the first output', () => out() !== '', 60_000, 20);
    await Promise.all([proc.stop(50), proc.stop(50)]); // idempotent
    expect(ends).toEqual([{ why: 'tmux control client exited (SIGKILL)', startFailed: false }]);
  });

  it('a stop while the client is still identifying waits for its first output (tmux 3.3a can crash when a control client leaves mid-identify)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tmcp-control-'));
    const go = join(dir, 'go');
    try {
      // A stand-in for tmux that identifies when told to, and says whether its stdin ended
      // before or after it wrote its first output.
      const fake = `const fs = require('fs'); let wrote = false;
process.stdin.on('end', () => { console.error(wrote ? 'eof-after-identify' : 'eof-before-identify'); process.exit(0); });
process.stdin.resume();
const t = setInterval(() => { if (fs.existsSync(${JSON.stringify(go)})) { clearInterval(t); wrote = true; process.stdout.write('identified\\n'); } }, 20);`;
      const { proc, ends } = shell('', { tmuxPath: process.execPath, args: ['-e', fake] });
      const stopped = proc.stop(30_000);
      // Give an early EOF every chance to arrive before the client identifies.
      await new Promise((resolve) => setTimeout(resolve, 500));
      writeFileSync(go, '');
      await stopped;
      expect(ends).toEqual([{ why: 'eof-after-identify', startFailed: false }]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
