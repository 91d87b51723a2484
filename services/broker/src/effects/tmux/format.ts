/**
 * What every reader of tmux output shares: the id shapes, the record splitter and the
 * logger type. Kept in one place so the adapter, the identity reader and the protocol
 * parser agree on what a pane or session id looks like.
 *
 * Records are parsed by position: fixed fields first, separated by tabs, and the one
 * free-form field (one a process controls, such as `#{pane_current_command}`) LAST, so
 * a tab or newline inside it can never shift the fields before it.
 */
import { AppError } from '@terminal-mcp/contract';

export interface TmuxLogger {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

export const silentLogger: TmuxLogger = { debug() {}, info() {}, warn() {}, error() {} };

export const PANE_ID_RE = /^%\d{1,10}$/;
export const SESSION_ID_RE = /^\$\d{1,10}$/;
const UINT_RE = /^\d{1,15}$/;

/** Throws INVALID_ARGUMENT unless `id` is a tmux pane id such as `%7`. */
export function assertPaneId(id: string): void {
  if (typeof id !== 'string' || !PANE_ID_RE.test(id)) throw new AppError('INVALID_ARGUMENT', 'not a tmux pane id');
}

/** Throws INVALID_ARGUMENT unless `id` is a tmux session id such as `$3`. */
export function assertSessionId(id: string): void {
  if (typeof id !== 'string' || !SESSION_ID_RE.test(id)) throw new AppError('INVALID_ARGUMENT', 'not a tmux session id');
}

/** Splits `line` into `count` tab-separated fixed fields and the rest (which may contain
 * tabs). Null when there are fewer than `count` tabs. */
export function splitFixed(line: string, count: number): { fields: string[]; rest: string } | null {
  const fields: string[] = [];
  let start = 0;
  for (let i = 0; i < count; i++) {
    const tab = line.indexOf('\t', start);
    if (tab < 0) return null;
    fields.push(line.slice(start, tab));
    start = tab + 1;
  }
  return { fields, rest: line.slice(start) };
}

/** A non-negative integer field, or null (tmux expands an unknown field to ""). */
export function uint(s: string | undefined): number | null {
  return s !== undefined && UINT_RE.test(s) ? Number(s) : null;
}
