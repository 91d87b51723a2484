/**
 * Independent completion verification: when an autonomous watch's pane claims DONE, the
 * broker checks the claim itself, outside the pane, with the verifier profile the watch
 * names — an entry of the operator's supervisor.verifier_profiles, looked up in the
 * config now (a profile removed from the config runs nothing): the worktree is a git
 * worktree root, clean when required, at the pinned commit when one is set, and the
 * profile's fixed test command (if any) exits 0 within its timeout. No part of a command
 * line, its directory or its timeout ever comes from a client or from pane output.
 * `failed`: the check ran and rejected the claim; `blocked`: it could not run (no such
 * profile or worktree, command not found).
 */
import type { BrokerConfig } from '../config/schema.js';
import type { SupervisorStore, WatchRow } from '../effects/store/supervisor-store.js';
import { readWorktreeFacts, realWorktree, runTestCommand } from '../effects/verifier/verifier-runner.js';

export interface VerifierOutcome {
  readonly result: 'passed' | 'failed' | 'blocked';
  readonly reason: string;
}

export type VerifierProfile = BrokerConfig['supervisor']['verifier_profiles'][number];

/** `hostEffects`: the operator's input switch (permissions.terminal_input). Off, the
 * verifier runs nothing at all (no git, no test command) and every claim is blocked. */
export function createVerifier(store: SupervisorStore, profiles: readonly VerifierProfile[], hostEffects: boolean): (watch: WatchRow) => Promise<VerifierOutcome> {
  return async (watch) => {
    if (!hostEffects) return { result: 'blocked', reason: 'verifier: acting on the host is off (permissions.terminal_input), so nothing was run' };
    const choice = store.verifier(watch.id);
    if (choice === undefined) return { result: 'blocked', reason: 'no verifier policy is set for this watch' };
    const profile = profiles.find((p) => p.id === choice.profile);
    if (profile === undefined) return { result: 'blocked', reason: `verifier: the profile ${JSON.stringify(choice.profile)} is not in supervisor.verifier_profiles` };
    const root = realWorktree(profile.worktree);
    if (root === null) return { result: 'blocked', reason: 'verifier: the worktree does not exist or is not a directory' };
    const facts = await readWorktreeFacts(root);
    if (facts === null) return { result: 'blocked', reason: 'verifier: the worktree is not the root of a git worktree with a commit' };
    if (profile.require_git_clean && facts.dirtyEntries > 0) {
      return { result: 'failed', reason: `verifier: the worktree is not clean (${facts.dirtyEntries} changed or untracked paths)` };
    }
    if (choice.require_commit !== null && !facts.head.startsWith(choice.require_commit)) {
      return { result: 'failed', reason: `verifier: HEAD is ${facts.head.slice(0, 12)}, not the pinned commit ${choice.require_commit.slice(0, 12)}` };
    }
    if (profile.test_command !== undefined) {
      const run = await runTestCommand(root, profile.test_command, profile.timeout_seconds * 1000);
      if (run.spawnFailed) return { result: 'blocked', reason: `verifier: the test command of profile ${profile.id} could not be started` };
      if (run.timedOut) return { result: 'failed', reason: `verifier: the test command did not finish within ${profile.timeout_seconds}s` };
      if (run.exitCode !== 0) return { result: 'failed', reason: `verifier: the test command exited with code ${String(run.exitCode)}` };
    }
    return {
      result: 'passed',
      reason: `verified (profile ${profile.id}): HEAD ${facts.head.slice(0, 12)}${profile.require_git_clean ? ', clean worktree' : ''}${profile.test_command !== undefined ? ', test command passed' : ''}`,
    };
  };
}
