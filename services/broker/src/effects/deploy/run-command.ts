/**
 * Runs one fixed deploy-preview command: an argv list from the operator's config (never
 * a shell string, never caller text), in the repository's directory, with a small fixed
 * environment, no stdin, and a timeout. The combined output comes back whole (bounded by
 * maxBuffer): the caller redacts it before cutting, so no secret is split at the cut.
 */
import { execa } from 'execa';
import { boundChild } from '../child-bounds.js';

export interface CommandRun {
  exitCode: number | null;
  timedOut: boolean;
  durationMs: number;
  output: string;
  truncated: boolean;
}

/** What the command sees of the broker's environment: enough to find programs, nothing
 * that might hold a secret. */
function commandEnv(): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
    HOME: process.env.HOME ?? '/',
    LANG: process.env.LANG ?? 'C.UTF-8',
    TERM: 'dumb',
    CI: '1',
  };
}

export async function runFixedCommand(argv: readonly string[], opts: { cwd: string; timeoutMs: number }): Promise<CommandRun> {
  const started = Date.now();
  // Its own process group, bounded at its exit (child-bounds.ts): the limit kills all it
  // started; a server it started on purpose, holding its output, does not hold the answer.
  const child = execa(argv[0]!, argv.slice(1), {
    cwd: opts.cwd,
    env: commandEnv(),
    extendEnv: false,
    shell: false,
    stdin: 'ignore',
    all: true,
    reject: false,
    detached: true,
    // A runaway writer is cut off well above what is kept.
    maxBuffer: 4 * 1024 * 1024,
    stripFinalNewline: false,
  });
  const bounds = boundChild(child, opts.timeoutMs);
  const result = await child.finally(() => bounds.clear());
  const all = typeof result.all === 'string' ? result.all : '';
  const notFound = (result as { code?: string }).code === 'ENOENT';
  const output = notFound ? `${argv[0]}: program not found\n` : all;
  return {
    exitCode: bounds.timedOut ? null : (result.exitCode ?? null),
    timedOut: bounds.timedOut,
    durationMs: Date.now() - started,
    output,
    truncated: result.isMaxBuffer === true,
  };
}
