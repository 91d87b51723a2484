/** Broker process figures read from /proc (Linux): CPU time and resident memory. */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';

const CLOCK_TICKS = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;

/** utime + stime of `pid` in seconds (fields 14 and 15 of /proc/<pid>/stat; the command
 * field, in parentheses, may contain spaces, so fields are counted after its `)`). */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}

/** VmRSS of `pid` in MB. */
export function rssMb(pid: number): number {
  const m = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : Number.NaN;
}

/** The machine's load, printed with every section (ratios, not absolutes, are what count
 * on a shared machine). */
export function load(): string {
  return `load ${loadavg().map((l) => l.toFixed(2)).join(' ')}`;
}
