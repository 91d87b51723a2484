/**
 * A process is done when it has exited, not when every copy of its stdio is closed.
 *
 * Node reports a child's end ('close', and so execa's promise) only once all its stdio
 * streams have closed, and other processes may hold copies of those pipes: an ssh client
 * multiplexed through a ControlMaster hands its stdin, stdout and stderr to the master,
 * which keeps them until the remote end closes the channel. Seen here (bench and CI at load
 * 6-13): a node's control client killed after its attach timed out kept the master holding
 * its stderr for good, the client's 'close' never came, and the node never reconnected.
 * So: once the process has exited, its streams get STDIO_GRACE_MS to end by themselves
 * (what it wrote before exiting is read in that time), then ours are destroyed.
 */
import type { ChildProcess } from 'node:child_process';

/** Long enough that output written before the exit is read even on a busy event loop: the
 * timer only fires once the loop has run, and a normal end closes the streams at once. */
export const STDIO_GRACE_MS = 2_000;

/** After `child` exits, destroys its stdio streams unless they closed within the grace. */
export function endStdioAfterExit(child: Pick<ChildProcess, 'once' | 'stdin' | 'stdout' | 'stderr'>, graceMs = STDIO_GRACE_MS): void {
  child.once('exit', () => {
    const timer = setTimeout(() => {
      for (const s of [child.stdin, child.stdout, child.stderr]) s?.destroy();
    }, graceMs);
    timer.unref();
    child.once('close', () => clearTimeout(timer));
  });
}
