/**
 * A process named as tmux names its server ("tmux: server"): a pane's own process is that
 * fork until it has exec'd the pane's command. Held under that name until `go()`, then it
 * execs `sleep 300`. Its process group is killed by `end()`.
 */
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { vi } from 'vitest';

export interface HeldTmuxFork {
  readonly pid: number;
  go(): void;
  end(): void;
}

export async function holdAsTmuxFork(dir: string, tag = 'go'): Promise<HeldTmuxFork> {
  const go = join(dir, tag);
  const child = spawn('sh', ['-c', `printf 'tmux: server' > /proc/$$/comm; while [ ! -e ${go} ]; do sleep 0.02; done; exec sleep 300`], { stdio: 'ignore', detached: true });
  const pid = child.pid!;
  await vi.waitFor(() => {
    if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() !== 'tmux: server') throw new Error('not renamed yet');
  }, { timeout: 60_000, interval: 20 });
  return {
    pid,
    go: () => writeFileSync(go, ''),
    end: () => {
      if (child.exitCode === null && child.signalCode === null) process.kill(-pid, 'SIGKILL');
    },
  };
}
