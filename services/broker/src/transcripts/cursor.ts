/**
 * Output cursors: a session identity, a transcript offset and, for a read of one pane, that
 * pane's id (read_since then returns that pane's lines only) (effects/transcripts/
 * transcript-files.ts), as base64url of a small versioned JSON. The state is in the cursor,
 * not the broker, so readers keep independent cursors. Not signed: an offset names nothing
 * a reader of that session could not read anyway; the broker checks that it belongs to the
 * session asked about and points at a line boundary before using it.
 */
import { AppError } from '@terminal-mcp/contract';
import type { SessionIdentity } from '../policy/identity.js';

export interface OutputCursor {
  readonly identity: SessionIdentity;
  readonly offset: number;
  /** `%3`: the cursor follows this pane's lines; absent: every pane's. */
  readonly pane?: string;
  /** The node whose session this is (`gpu`); absent: this host's. A node's tmux server pid
   * may equal this host's, so the identity alone does not say which host it is on. */
  readonly node?: string;
}

const badCursor = (why: string) =>
  new AppError('INVALID_ARGUMENT', `cursor: ${why}`, 'Pass a cursor exactly as an earlier terminal_tail, terminal_capture, terminal_batch_inspect or terminal_read_since of this session returned it; call terminal_tail for a fresh one.');

export function encodeCursor(c: OutputCursor): string {
  const json = JSON.stringify({ v: 1, p: c.identity.serverPid, s: c.identity.sessionId, c: c.identity.created, o: c.offset, ...(c.pane !== undefined && { n: c.pane }), ...(c.node !== undefined && { h: c.node }) });
  return Buffer.from(json, 'utf8').toString('base64url');
}

export function decodeCursor(text: string): OutputCursor {
  if (!/^[A-Za-z0-9_-]{1,512}$/.test(text)) throw badCursor('not a cursor this broker issued');
  let v: unknown;
  try {
    v = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    throw badCursor('not a cursor this broker issued');
  }
  const o = v as { v?: unknown; p?: unknown; s?: unknown; c?: unknown; o?: unknown; n?: unknown; h?: unknown };
  const int = (x: unknown): x is number => typeof x === 'number' && Number.isSafeInteger(x) && x >= 0;
  if (typeof v !== 'object' || v === null || o.v !== 1 || !int(o.p) || typeof o.s !== 'string' || !/^\$\d{1,10}$/.test(o.s) || !int(o.c) || !int(o.o) || (o.n !== undefined && (typeof o.n !== 'string' || !/^%\d{1,9}$/.test(o.n))) || (o.h !== undefined && (typeof o.h !== 'string' || !/^[a-z][a-z0-9_-]{0,31}$/.test(o.h)))) {
    throw badCursor('not a cursor this broker issued');
  }
  return { identity: { serverPid: o.p, sessionId: o.s, created: o.c }, offset: o.o, ...(typeof o.n === 'string' && { pane: o.n }), ...(typeof o.h === 'string' && { node: o.h }) };
}

export { badCursor };
