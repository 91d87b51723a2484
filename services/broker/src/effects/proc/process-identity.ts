/**
 * Which process a pid names. A pid alone names a process only until it exits: then the
 * kernel gives the number to a later process (with the default pid_max of 32768, after a
 * few minutes of a busy machine). So whatever we may signal later is recorded as its pid
 * plus its start time (field 22 of /proc/<pid>/stat, clock ticks since boot), and it is
 * signalled only while both still match. A pid whose start time cannot be read (no /proc,
 * another system) cannot be proven to be ours and is never signalled.
 */
import { readFileSync } from 'node:fs';

export interface ProcessIdentity {
  pid: number;
  /** /proc/<pid>/stat field 22 (starttime), as printed there. */
  start: string;
}

/** Only an ordinary process id: 0, negative ids (process groups, "every process") and 1
 * (init) are never a process of ours. */
export function isOrdinaryPid(pid: unknown): pid is number {
  return typeof pid === 'number' && Number.isSafeInteger(pid) && pid > 1;
}

/** Field 22 of /proc/<pid>/stat, or undefined when the process is gone, a zombie, or
 * /proc cannot be read. The command name (field 2) may contain spaces and `)`, so the
 * fields are counted from the last `)`. */
export function processStartTime(pid: number): string | undefined {
  if (!isOrdinaryPid(pid)) return undefined;
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  // fields[0] is field 3 (state), so field 22 is fields[19].
  if (fields[0] === 'Z' || fields[0] === 'X') return undefined;
  const start = fields[19];
  return start !== undefined && /^\d+$/.test(start) ? start : undefined;
}

/** The identity of a running process, to record now and check before signalling it later. */
export function identityOf(pid: number): ProcessIdentity | undefined {
  const start = processStartTime(pid);
  return start === undefined ? undefined : { pid, start };
}

/** Whether the process recorded as `id` is still running (not a later one with its pid). */
export function stillRunning(id: ProcessIdentity): boolean {
  return processStartTime(id.pid) === id.start;
}

/** Sends `signal` to the recorded process only if it is still that process; true if sent. */
export function signalIdentified(id: ProcessIdentity, signal: NodeJS.Signals): boolean {
  if (!stillRunning(id)) return false;
  try {
    process.kill(id.pid, signal);
    return true;
  } catch {
    return false; // exited between the check and the signal
  }
}
