/**
 * Whether a process still runs, for the records that name one (the instance lock, the
 * broker and supervisor run files) and for `terminal-mcp stop`'s wait.
 *
 * `kill(pid, 0)` alone is not enough: a process that has exited but whose parent has not
 * collected it yet (a zombie) still answers it. A service started from a shell that then
 * exited belongs to PID 1, and in many containers PID 1 collects orphans late or never:
 * `terminal-mcp stop` then saw a broker that had stopped in a fraction of a second as
 * running for its whole 20 s grace, SIGKILLed the zombie and reported "did not stop".
 * A zombie holds no socket, lock or file, so it counts as gone.
 */
import { readFileSync } from 'node:fs';

/** The state letter of /proc/<pid>/stat (Linux), or undefined where /proc cannot say. The
 * command name is in parentheses and may itself contain ") ", hence the last one. */
function procState(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) || undefined;
  } catch {
    return undefined;
  }
}

/** Whether a process with this pid exists and has not exited (EPERM: it exists, owned by
 * someone else). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const state = procState(pid);
  // Z: exited, waiting for its parent; X: being removed.
  return state !== 'Z' && state !== 'X';
}
