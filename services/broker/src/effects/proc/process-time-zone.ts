/**
 * A local process's `TZ` as it was given to it (/proc/<pid>/environ): the zone a usage
 * limit's reset time is read in when the message names none (policy/usage-limit.ts). Only
 * this host's processes: a node's pane pid names another machine's process.
 */
import { readFileSync } from 'node:fs';
import { isOrdinaryPid } from './process-identity.js';

/** An environment is at most this big here; a larger one is not read. */
const ENVIRON_MAX = 256 * 1024;
const ZONE_MAX = 64;

/** The process's TZ (POSIX `:Area/City` read as `Area/City`), or undefined when it has none,
 * is gone, or /proc cannot be read. */
export function processTimeZone(pid: number): string | undefined {
  if (!isOrdinaryPid(pid)) return undefined;
  let environ: Buffer;
  try {
    environ = readFileSync(`/proc/${pid}/environ`);
  } catch {
    return undefined;
  }
  if (environ.length > ENVIRON_MAX) return undefined;
  for (const entry of environ.toString('utf8').split('\0')) {
    if (!entry.startsWith('TZ=')) continue;
    const zone = entry.slice(3).replace(/^:/, '');
    return zone === '' || zone.length > ZONE_MAX ? undefined : zone;
  }
  return undefined;
}
