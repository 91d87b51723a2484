/**
 * What a watch's state is, from the same status the terminal_status tool reports plus two
 * states that need explicit evidence on the screen: DONE (a line that is exactly the
 * watch's completion marker, so the command that echoes it does not count) and ERROR (a
 * traceback, fatal or exit-code line). Silence alone is never DONE: an UNKNOWN pane that
 * has been quiet for idle_threshold_seconds is IDLE. Pure.
 */
import { createHash } from 'node:crypto';
import type { SessionStatusResult, WatchState } from '@terminal-mcp/contract';
import type { UsageLimit } from '../policy/usage-limit.js';
import { SUPERVISOR_LIMITS } from '@terminal-mcp/contract';
import { redactSecrets } from '../policy/redact.js';

export const DEFAULT_DONE_MARKER = 'TERMINAL_MCP_DONE';

/** The marker counts on the last few non-empty lines only: output far above is old news. */
const DONE_WINDOW = 5;
/** Error evidence counts on the last lines only, and only at the start of a line (not in prose). */
const ERROR_WINDOW = 8;
const PREVIEW_LINES = 6;
/** classifyPaneStatus's reason when RUNNING rests on output recency alone (policy/status.ts). */
const RECENCY_REASON = /produced output \d+s ago$/;

const TRACEBACK = /^Traceback \(most recent call last\):/;
const ERROR_MARKERS: readonly RegExp[] = [
  TRACEBACK,
  /^(?:[A-Z][\w.]*)?(?:Error|Exception)(?:\[\w+\])?: \S/,
  /^(?:fatal|panic|FATAL|PANIC|Fatal error)[:!]/,
  /^npm (?:ERR!|error) /,
  /^error(?:\[E\d+\])?: /,
  /\berror TS\d+: /,
  /^Segmentation fault\b|\(core dumped\)/,
  /^make(?:\[\d+\])?: \*\*\* .*Error \d+/,
  /\b(?:exited|failed) with (?:exit )?(?:code|status) [1-9]\d*\b/i,
];

export interface Observation {
  readonly state: Extract<WatchState, 'RUNNING' | 'IDLE' | 'WAITING_INPUT' | 'UNKNOWN' | 'DONE' | 'ERROR'>;
  readonly reason: string;
  /** sha256 of the visible (already redacted) screen text. */
  readonly hash: string;
  /** The last lines, redacted and cut to SUPERVISOR_LIMITS.previewMax. */
  readonly preview: string;
  /** The agent hit a usage limit (state WAITING_INPUT): its reset. */
  readonly limit?: UsageLimit;
}

function nonEmptyBottom(lines: readonly string[], count: number): string[] {
  const out: string[] = [];
  for (let i = lines.length - 1; i >= 0 && out.length < count; i -= 1) {
    const line = (lines[i] as string).trimEnd();
    if (line.trim() !== '') out.push(line);
  }
  return out.reverse();
}

const cut = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/** Redacted (again: the pane reader already redacted the whole screen) and cut, so a
 * preview can never carry more than the reader showed. */
export function previewOf(lines: readonly string[]): string {
  const text = nonEmptyBottom(lines, PREVIEW_LINES).join('\n');
  // Redacted whole, then cut: a cut first could split a token or a key block so that
  // the redactor no longer recognises what is left of it.
  return cut(redactSecrets(text).text, SUPERVISOR_LIMITS.previewMax);
}

export function screenHash(lines: readonly string[]): string {
  return createHash('sha256').update(nonEmptyBottom(lines, 200).join('\n')).digest('hex');
}

export function observe(status: SessionStatusResult, lines: readonly string[], doneMarker: string, idleThresholdSeconds: number, limit?: UsageLimit): Observation {
  const base = { hash: screenHash(lines), preview: previewOf(lines) };
  // RUNNING only because something wrote within the last seconds (not a busy footer) does
  // not hide a traceback or marker just printed: the program that printed it has often
  // exited, and the next program's start would make the state flap ERROR → RUNNING → ERROR.
  const recentOnly = status.status === 'RUNNING' && RECENCY_REASON.test(status.reason);
  if (status.status === 'WAITING_INPUT' && limit !== undefined) return { ...base, state: 'WAITING_INPUT', reason: status.reason, limit };
  if (status.status === 'WAITING_INPUT' || (status.status === 'RUNNING' && !recentOnly)) return { ...base, state: status.status, reason: status.reason };
  // A secret prompt waits for input too (a person's: the reason says so, and the watch's
  // attention event carries it).
  if (status.status === 'WAITING_HUMAN') return { ...base, state: 'WAITING_INPUT', reason: status.reason };
  const bottom = nonEmptyBottom(lines, ERROR_WINDOW);
  const recent = bottom.slice(-DONE_WINDOW);
  if (recent.some((line) => line.trim() === doneMarker)) {
    return { ...base, state: 'DONE', reason: cut(`completion marker ${JSON.stringify(doneMarker)} on the screen`, SUPERVISOR_LIMITS.reasonMax) };
  }
  for (let i = bottom.length - 1; i >= 0; i -= 1) {
    const line = bottom[i] as string;
    const marker = ERROR_MARKERS.find((m) => m.test(line));
    // A traceback header with only indented frame lines under it is still being printed
    // (Python writes it line by line, and tmux may show the screen between two lines): the
    // exception line, which names the error, comes next and is the evidence to report.
    if (marker === TRACEBACK && bottom.slice(i + 1).every((below) => /^\s/.test(below))) continue;
    if (marker !== undefined) {
      const at = bottom.length - 1 - i;
      const where = at === 0 ? 'on the last line' : `${at + 1} lines from the bottom`;
      return { ...base, state: 'ERROR', reason: cut(`error marker ${JSON.stringify(cut(line.trim(), 80))} ${where}`, SUPERVISOR_LIMITS.reasonMax) };
    }
  }
  if (recentOnly) return { ...base, state: 'RUNNING', reason: status.reason };
  if (status.status === 'IDLE') return { ...base, state: 'IDLE', reason: status.reason };
  if (status.idle_seconds >= idleThresholdSeconds) {
    return { ...base, state: 'IDLE', reason: `no output for ${status.idle_seconds}s (idle_threshold_seconds ${idleThresholdSeconds}); ${status.reason}` };
  }
  return { ...base, state: 'UNKNOWN', reason: status.reason };
}
