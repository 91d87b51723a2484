/** What a pid runs, from /proc (Linux): a pid in a record may have been reused by an
 * unrelated process since, so records are trusted only while the command line still
 * matches. Where /proc is missing, the answer is "unknown" (undefined). */
import { readFileSync } from 'node:fs';
import { pidAlive } from '../pid-alive.js';

export function commandLine(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
  } catch {
    return undefined;
  }
}

/** Alive and (where the command line can be read) running something that names `text`. */
export function pidRuns(pid: number, text: string): boolean {
  if (!pidAlive(pid)) return false;
  const cmd = commandLine(pid);
  return cmd === undefined ? true : cmd.includes(text);
}
