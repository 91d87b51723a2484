/**
 * The verifier's process side: read-only git facts of a worktree (through the source
 * git runner: no shell, scratch environment, fixed subcommands) and one fixed test
 * command, run as a literal argv without a shell, in the worktree, with an environment
 * built from scratch (nothing of the broker's environment leaks in), stdin closed, a
 * timeout (SIGKILL) and capped output. Nothing here is ever derived from pane output.
 */
import { realpathSync, statSync } from 'node:fs';
import { execa } from 'execa';
import { boundChild } from '../child-bounds.js';
import { openGitRepo } from '../git/git-runner.js';

export interface WorktreeFacts {
  readonly head: string;
  /** `git status --porcelain` lines (paths only, never shown to callers). */
  readonly dirtyEntries: number;
}

/** The worktree's real path, or null when it is not an existing directory. */
export function realWorktree(path: string): string | null {
  try {
    const real = realpathSync(path);
    return statSync(real).isDirectory() ? real : null;
  } catch {
    return null;
  }
}

/** HEAD and the dirty-entry count, or null when the directory is not a git worktree root. */
export async function readWorktreeFacts(root: string): Promise<WorktreeFacts | null> {
  const repo = await openGitRepo(root);
  const top = await repo.run(['rev-parse', '--show-toplevel']);
  if (top.exitCode !== 0 || top.stdout.toString('utf8').trim() !== root) return null;
  const head = await repo.run(['rev-parse', '--verify', 'HEAD']);
  if (head.exitCode !== 0) return null;
  const status = await repo.run(['status', '--porcelain', '--untracked-files=normal']);
  if (status.exitCode !== 0) return null;
  const dirty = status.stdout.toString('utf8').split('\n').filter((l) => l.trim() !== '').length;
  return { head: head.stdout.toString('utf8').trim(), dirtyEntries: dirty };
}

export interface TestRun {
  readonly exitCode: number | null;
  readonly timedOut: boolean;
  /** The command could not be started at all (not found, not executable). */
  readonly spawnFailed: boolean;
}

export async function runTestCommand(root: string, argv: readonly string[], timeoutMs: number): Promise<TestRun> {
  const [file, ...args] = argv;
  if (file === undefined) return { exitCode: null, timedOut: false, spawnFailed: true };
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
    HOME: process.env.HOME ?? root,
    LANG: 'C.UTF-8',
    CI: '1',
    NO_COLOR: '1',
  };
  // Its own process group, bounded at its exit (child-bounds.ts): the limit kills all it
  // started, and something it left holding its output does not hold the verdict.
  const child = execa(file, args, {
    cwd: root,
    env,
    extendEnv: false,
    shell: false,
    stdin: 'ignore',
    reject: false,
    detached: true,
    maxBuffer: { stdout: 1024 * 1024, stderr: 1024 * 1024 },
  });
  const bounds = boundChild(child, timeoutMs);
  const result = await child.finally(() => bounds.clear());
  if (bounds.timedOut) return { exitCode: null, timedOut: true, spawnFailed: false };
  const spawnFailed = result.exitCode === undefined;
  return { exitCode: result.exitCode ?? null, timedOut: false, spawnFailed };
}
