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

/** Where `pid`'s resident memory is, in MB, from /proc/<pid>/smaps_rollup: file-backed
 * pages (mostly the node binary's code, shared with every other node process, so counted
 * once in Pss across them) and anonymous pages (the heap, malloc, stacks: this process's). */
export function memoryParts(pid: number): { fileMb: number; anonMb: number; pssMb: number } {
  const text = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
  const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB$`, 'm').exec(text)?.[1] ?? Number.NaN) / 1024;
  return { fileMb: kb('Rss') - kb('Anonymous'), anonMb: kb('Anonymous'), pssMb: kb('Pss') };
}

/** The machine's load, printed with every section (ratios, not absolutes, are what count
 * on a shared machine). */
export function load(): string {
  return `load ${loadavg().map((l) => l.toFixed(2)).join(' ')}`;
}
