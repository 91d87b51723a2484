/**
 * Time bounds for an operator-configured command (verifier-runner.ts, deploy/run-command.ts)
 * that hold at the command's exit, not at the end of its output.
 *
 * A child's result is reported when its stdout and stderr end, and they end only when every
 * process holding them has closed them. A command that leaves something behind with its
 * output (`server & echo started`, a test runner's watcher) would keep the broker waiting
 * for as long as that lives: measured with execa, `sh -c 'sleep 8 & echo hi'` answered after
 * 8 s, marked timed out by a 2 s limit although it had exited 0 at once, and a 2 s limit on
 * `sh -c 'sleep 30 & sleep 30'` answered after 30 s (the kill reached only `sh`). So:
 * - the command runs as its own process group (spawn it `detached`), and the time limit
 *   kills that whole group;
 * - once the command itself has exited, its output is waited for at most EXIT_GRACE_MS
 *   more, then our ends of its pipes are closed so the result is reported with what came.
 *   What it left running is left alone (a deploy command may start a server on purpose).
 */

/** What is needed of a started child (execa's subprocess is one). Structural, so this
 * module starts nothing itself. */
export interface BoundableChild {
  readonly pid?: number | undefined;
  once(event: 'exit', listener: () => void): unknown;
  readonly stdout?: { destroy(): void } | null;
  readonly stderr?: { destroy(): void } | null;
  readonly all?: { destroy(): void } | undefined;
}

export interface ChildBounds {
  /** The time limit killed the command's process group. */
  readonly timedOut: boolean;
  /** Clears the timers (call when the result is in). */
  clear(): void;
}

/** How long output may still arrive after the command exited. */
export const EXIT_GRACE_MS = 2_000;

export function boundChild(child: BoundableChild, timeoutMs: number, exitGraceMs = EXIT_GRACE_MS): ChildBounds {
  let timedOut = false;
  let grace: NodeJS.Timeout | undefined;
  const stopWaitingForOutput = () => {
    child.stdout?.destroy();
    child.stderr?.destroy();
    child.all?.destroy();
  };
  const killGroup = () => {
    if (child.pid === undefined) return;
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      // ESRCH: the group is gone already.
    }
  };
  const limit = setTimeout(() => {
    timedOut = true;
    killGroup();
    // A process that left the group (setsid) may still hold the output.
    grace ??= setTimeout(stopWaitingForOutput, exitGraceMs);
  }, timeoutMs);
  child.once('exit', () => {
    grace ??= setTimeout(stopWaitingForOutput, exitGraceMs);
  });
  return {
    get timedOut() {
      return timedOut;
    },
    clear() {
      clearTimeout(limit);
      clearTimeout(grace);
    },
  };
}
