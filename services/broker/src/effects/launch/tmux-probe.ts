/** tmux facts for `status` and `doctor`, asked without starting a server: `-V` and
 * `list-sessions` never start one (tmux belongs to the user). TMUX/TMUX_PANE are dropped
 * so the check looks at the server the broker would use, not the enclosing one. */
import { execFileSync } from 'node:child_process';

function tmuxEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env.TMUX;
  delete env.TMUX_PANE;
  return env;
}

/** e.g. "3.3a", or undefined when tmux is not installed. */
export function tmuxVersion(): string | undefined {
  try {
    return execFileSync('tmux', ['-V'], { encoding: 'utf8', timeout: 5_000, env: tmuxEnv(), stdio: ['ignore', 'pipe', 'ignore'] })
      .trim()
      .replace(/^tmux\s+/, '');
  } catch {
    return undefined;
  }
}

export type TmuxServerCheck = { running: true; sessions: number } | { running: false; detail: string };

export function tmuxServerCheck(socketName: string | undefined): TmuxServerCheck {
  const args = [...(socketName ? ['-L', socketName] : []), 'list-sessions', '-F', '#{session_id}'];
  try {
    const out = execFileSync('tmux', args, { encoding: 'utf8', timeout: 5_000, env: tmuxEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    return { running: true, sessions: out.split('\n').filter(Boolean).length };
  } catch (err) {
    const stderr = String((err as { stderr?: unknown }).stderr ?? '').trim();
    return { running: false, detail: stderr.split('\n')[0]?.slice(0, 200) || (err as Error).message.slice(0, 200) };
  }
}

export function describeTmuxServer(socketName: string | undefined): string {
  return socketName ? `tmux -L ${socketName}` : 'your default tmux server';
}
