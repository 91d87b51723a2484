/**
 * Spawns one tmux command line as argv (never a shell) on the configured server: the
 * input path's runner, used where the persistent control client cannot serve — chiefly
 * `load-buffer -`, which takes the text to paste as BYTES ON STDIN so user text never
 * reaches a tmux command line (docs/architecture.md section 6).
 *
 * Every argument is checked before spawning: printable ASCII (tab allowed, for formats)
 * and never ending in `;`, which tmux would take as a command separator. Callers pass
 * only constants, validated ids (`%7`, `$3`), generated buffer names and allowlisted key
 * names; the check makes a mistake fail loudly instead of reaching tmux.
 */
import { AppError } from '@terminal-mcp/contract';
import { execa } from 'execa';
import { tmuxEnvironment, tmuxGlobalArgs } from './control-process.js';
import type { TmuxTransport } from './transport.js';

export const TMUX_COMMAND_TIMEOUT_MS = 5_000;

export interface TmuxCommandResult {
  exitCode: number;
  stdout: string;
  /** For classifying failures and the log; never shown to a caller. */
  stderr: string;
  timedOut: boolean;
}

export interface TmuxCommandOptions {
  input?: Buffer;
  timeoutMs?: number;
}

export interface TmuxCommandRunner {
  run(args: readonly string[], options?: TmuxCommandOptions): Promise<TmuxCommandResult>;
  /** Several commands in one spawn, run by tmux in order as one command list (it stops at
   * the first that fails). The `;` separators are added by the runner as argv elements of
   * their own, after every command's arguments passed the check. */
  runList(commands: readonly (readonly string[])[], options?: TmuxCommandOptions): Promise<TmuxCommandResult>;
}

const SAFE_ARGUMENT_RE = /^[\x20-\x7e\t]{1,512}$/;

export function assertSafeTmuxArgument(arg: string): void {
  if (typeof arg !== 'string' || !SAFE_ARGUMENT_RE.test(arg) || arg.endsWith(';')) {
    throw new AppError('INTERNAL', 'refusing an unsafe tmux argument');
  }
}

export function createTmuxCommandRunner(
  options: { socketName?: string | undefined; tmuxPath?: string; transport?: TmuxTransport; /** Default bound of one command (a node's are longer). */ timeoutMs?: number } = {},
): TmuxCommandRunner {
  const globalArgs = tmuxGlobalArgs(options.socketName);
  const env = tmuxEnvironment();
  const tmuxPath = options.tmuxPath ?? 'tmux';
  const spawnTmux = async (args: readonly string[], runOptions: TmuxCommandOptions): Promise<TmuxCommandResult> => {
    // Through the transport when there is one (a node: ssh … -- tmux …).
    const launch = options.transport?.launch([...globalArgs, ...args]) ?? { file: tmuxPath, args: [...globalArgs, ...args] };
    const result = await execa(launch.file, launch.args, {
      env,
      extendEnv: false,
      cwd: '/',
      reject: false,
      timeout: runOptions.timeoutMs ?? options.timeoutMs ?? TMUX_COMMAND_TIMEOUT_MS,
      killSignal: 'SIGKILL',
      maxBuffer: 1024 * 1024,
      ...(runOptions.input !== undefined ? { input: runOptions.input } : { stdin: 'ignore' as const }),
    });
    return {
      exitCode: typeof result.exitCode === 'number' ? result.exitCode : -1,
      stdout: typeof result.stdout === 'string' ? result.stdout : '',
      stderr: typeof result.stderr === 'string' ? result.stderr.slice(0, 2_000) : '',
      timedOut: result.timedOut === true,
    };
  };
  return {
    run(args, runOptions = {}) {
      for (const arg of args) assertSafeTmuxArgument(arg);
      return spawnTmux(args, runOptions);
    },
    runList(commands, runOptions = {}) {
      for (const command of commands) for (const arg of command) assertSafeTmuxArgument(arg);
      return spawnTmux(commands.flatMap((command, i) => (i === 0 ? [...command] : [';', ...command])), runOptions);
    },
  };
}
