/**
 * Independent completion verification: when an autonomous watch's pane claims DONE, the
 * broker checks the claim itself, outside the pane: the worktree is a git worktree root,
 * clean when required, at the pinned commit when one is set, and the fixed test command
 * (if any) exits 0 within its timeout. `failed`: the check ran and rejected the claim;
 * `blocked`: it could not run (no such worktree, command not found).
 */
import type { SupervisorStore, WatchRow } from '../effects/store/supervisor-store.js';
import { readWorktreeFacts, realWorktree, runTestCommand } from '../effects/verifier/verifier-runner.js';

export interface VerifierOutcome {
  readonly result: 'passed' | 'failed' | 'blocked';
  readonly reason: string;
}

export function createVerifier(store: SupervisorStore): (watch: WatchRow) => Promise<VerifierOutcome> {
  return async (watch) => {
    const policy = store.verifier(watch.id);
    if (policy === undefined) return { result: 'blocked', reason: 'no verifier policy is set for this watch' };
    const root = realWorktree(policy.worktree);
    if (root === null) return { result: 'blocked', reason: 'verifier: the worktree does not exist or is not a directory' };
    const facts = await readWorktreeFacts(root);
    if (facts === null) return { result: 'blocked', reason: 'verifier: the worktree is not the root of a git worktree with a commit' };
    if (policy.require_git_clean === 1 && facts.dirtyEntries > 0) {
      return { result: 'failed', reason: `verifier: the worktree is not clean (${facts.dirtyEntries} changed or untracked paths)` };
    }
    if (policy.require_commit !== null && !facts.head.startsWith(policy.require_commit)) {
      return { result: 'failed', reason: `verifier: HEAD is ${facts.head.slice(0, 12)}, not the pinned commit ${policy.require_commit.slice(0, 12)}` };
    }
    if (policy.test_command !== null) {
      const argv = JSON.parse(policy.test_command) as string[];
      const run = await runTestCommand(root, argv, policy.timeout_seconds * 1000);
      if (run.spawnFailed) return { result: 'blocked', reason: `verifier: the test command ${JSON.stringify(argv[0])} could not be started` };
      if (run.timedOut) return { result: 'failed', reason: `verifier: the test command did not finish within ${policy.timeout_seconds}s` };
      if (run.exitCode !== 0) return { result: 'failed', reason: `verifier: the test command exited with code ${String(run.exitCode)}` };
    }
    return { result: 'passed', reason: `verified: HEAD ${facts.head.slice(0, 12)}${policy.require_git_clean === 1 ? ', clean worktree' : ''}${policy.test_command !== null ? ', test command passed' : ''}` };
  };
}
