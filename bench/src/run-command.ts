/**
 * The `run` section: terminal_run (an SDK client over stdio → gateway → broker → tmux)
 * against the naive way an agent learns a command's exit status without it — type
 * `bash -c '<cmd>; echo MARK_<n> $?'` with `tmux send-keys`, then `tmux capture-pane`
 * every 100 ms until the marker line appears — for `true` and `seq 1 100`, interleaved,
 * each in its own bash pane on one private tmux server. A second baseline types the same
 * line and Enter with ONE `tmux send-keys` (`naive1`: one spawn fewer, the stricter
 * baseline; the target is still reported against the first, as in earlier runs).
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { repoPath, startBrokerProcess, startTmuxServer } from '@terminal-mcp/test';
import type { Teardown } from './teardown.js';
import { summarize, type Stats } from './stats.js';

const POLL_MS = 100;
export const RUN_COMMANDS = ['true', 'seq 1 100'] as const;

export interface RunBenchRow {
  command: string;
  ours: Stats;
  naive: Stats;
  naive1: Stats;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** `owned`: the run's teardown; what this starts is registered there as it starts, so a
 * failure or an interrupt anywhere leaves nothing running. */
export async function benchRunCommand(owned: Teardown, iterations: number, warmup = 5): Promise<RunBenchRow[]> {
  const tmux = await startTmuxServer();
  const stopTmux = owned.add('the run tmux server', () => tmux.kill());
  const env = { ...process.env };
  delete env.TMUX;
  delete env.TMUX_PANE;
  const run = promisify(execFile);
  const tmuxCmd = (args: string[]) => run('tmux', ['-L', tmux.socketName, ...args], { env });
  const shell = "env PS1='$ ' HISTFILE=/dev/null bash --norc --noprofile -i";
  await tmux.newSession('agent-run', shell, { width: 160, height: 50 });
  await tmux.newSession('agent-naive', shell, { width: 160, height: 50 });
  await tmux.newSession('agent-naive1', shell, { width: 160, height: 50 });
  const broker = await startBrokerProcess({
    tmuxSocket: tmux.socketName,
    config: { log_level: 'warn', permissions: { terminal_read: true, terminal_input: true }, allowed_session_patterns: ['agent-*'], input_policy: { allowed_session_patterns: ['agent-*'] } },
  });
  const stopBroker = owned.add('the run broker', () => broker.stop());
  const client = new Client({ name: 'bench-run', version: '1' });
  const stopClient = owned.add('the run stdio gateway', () => client.close());
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [repoPath('services/gateway/dist/bin/stdio.js')], env: broker.env as Record<string, string>, stderr: 'ignore' }));
  let n = 0;

  const ours = async (command: string) => {
    const r = await client.callTool({ name: 'terminal_run', arguments: { session: 'agent-run', command } });
    const s = r.structuredContent as { state?: string; exit_status?: number } | undefined;
    if (r.isError || s?.state !== 'DONE' || s.exit_status !== 0) throw new Error(`terminal_run failed: ${JSON.stringify(r.content)}`);
  };
  const naiveIn = (session: string, oneSpawn: boolean) => async (command: string) => {
    const mark = `MARK_${++n}`;
    const line = `bash -c '${command}; echo ${mark} $?'`;
    if (oneSpawn) {
      await tmuxCmd(['send-keys', '-t', `=${session}:`, line, 'Enter']);
    } else {
      await tmuxCmd(['send-keys', '-t', `=${session}:`, '-l', line]);
      await tmuxCmd(['send-keys', '-t', `=${session}:`, 'Enter']);
    }
    const done = new RegExp(`^${mark} (\\d+)$`, 'm');
    for (;;) {
      const { stdout } = await tmuxCmd(['capture-pane', '-p', '-J', '-t', `=${session}:`, '-S', '-200']);
      if (done.test(stdout)) return;
      await sleep(POLL_MS);
    }
  };
  const naive = naiveIn('agent-naive', false);
  const naive1 = naiveIn('agent-naive1', true);
  const timed = async (samples: number[], fn: () => Promise<void>) => {
    const t0 = process.hrtime.bigint();
    await fn();
    samples.push(Number(process.hrtime.bigint() - t0) / 1e6);
  };

  try {
    // The prompt, then warm-up of both paths (JIT, the broker's control client).
    for (let i = 0; i < 200 && !(await tmuxCmd(['capture-pane', '-p', '-t', '=agent-run:'])).stdout.includes('$'); i++) await sleep(50);
    for (let i = 0; i < warmup; i++) {
      for (const c of RUN_COMMANDS) {
        await ours(c);
        await naive(c);
        await naive1(c);
      }
    }
    const rows: RunBenchRow[] = [];
    for (const command of RUN_COMMANDS) {
      const a: number[] = [];
      const b: number[] = [];
      const c1: number[] = [];
      for (let i = 0; i < iterations; i++) {
        await timed(a, () => ours(command));
        await timed(b, () => naive(command));
        await timed(c1, () => naive1(command));
        // Keep the screens short, so capture cost does not grow over the run.
        if (i % 10 === 9) for (const s of ['agent-run', 'agent-naive', 'agent-naive1']) await tmuxCmd(['clear-history', '-t', `=${s}:`]);
      }
      rows.push({ command, ours: summarize(a), naive: summarize(b), naive1: summarize(c1) });
    }
    return rows;
  } finally {
    await stopClient();
    await stopBroker();
    await stopTmux();
  }
}
