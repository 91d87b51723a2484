/** Runs a built entry point as a real child process and collects its output; killed
 * after a generous deadline so a hung child fails the test instead of hanging it. */
import { spawn } from 'node:child_process';
import { GENEROUS_WAIT_MS } from './wait-for.js';

export interface NodeRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export function runNode(args: string[], env: NodeJS.ProcessEnv, deadlineMs = GENEROUS_WAIT_MS): Promise<NodeRun> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), deadlineMs);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/** The environment without TMUX/TMUX_PANE (tmux follows $TMUX to the enclosing server). */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.TMUX;
  delete env.TMUX_PANE;
  delete env.TERMINAL_MCP_CONFIG;
  return { ...env, ...extra };
}

/** Waits for a condition with a generous deadline (never a speed assumption). */
export async function waitFor(what: string, check: () => boolean | Promise<boolean>, deadlineMs = GENEROUS_WAIT_MS, everyMs = 100): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
