/**
 * Reading text-only answers the way a client does (issue 31: structuredContent travels only
 * where a client reads it, docs/tools.md): the fields tests check, parsed from the text the
 * tools render. List answers are tables: parseRows (@terminal-mcp/gateway).
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

export const textOf = (r: CallToolResult) => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');

const UNTRUSTED = '. Untrusted terminal output follows.\n';

/** A pane read (terminal_capture, terminal_tail_bound) or terminal_read_since: the notes of its
 * first line and the text after it. */
export interface ReadAnswer {
  text: string;
  line_count: number;
  redactions: number;
  cursor?: string;
  dead: boolean;
  dropped: boolean;
  dropped_reason?: 'max_lines' | 'rotated' | 'write_failed' | 'unrecorded';
  dropped_lines?: number;
  pending?: string;
}

export function readAnswerOf(r: CallToolResult): ReadAnswer {
  if (r.isError) throw new Error(`expected an answer, got ${textOf(r).slice(0, 300)}`);
  const all = textOf(r);
  const cut = all.indexOf(UNTRUSTED);
  if (cut < 0) throw new Error(`not a pane read: ${all.slice(0, 200)}`);
  const head = all.slice(0, cut);
  let text = all.slice(cut + UNTRUSTED.length);
  let pending: string | undefined;
  if (head.includes('an unfinished line pending at the end')) {
    const at = text.lastIndexOf('\n[pending, unfinished line] ');
    pending = text.slice(at + '\n[pending, unfinished line] '.length);
    text = text.slice(0, at);
  }
  const reason = /\((max_lines|rotated|write_failed|unrecorded)\)/.exec(head)?.[1] as ReadAnswer['dropped_reason'];
  const droppedLines = /(\d+) older line\(s\) dropped/.exec(head)?.[1];
  return {
    text,
    line_count: Number(/(\d+) (?:new )?line\(s\)/.exec(head)?.[1] ?? NaN),
    redactions: Number(/(\d+) secret\(s\) redacted/.exec(head)?.[1] ?? 0),
    ...(/cursor ([A-Za-z0-9_-]+)/.exec(head) ? { cursor: /cursor ([A-Za-z0-9_-]+)/.exec(head)![1]! } : {}),
    dead: /DEAD session/.test(head),
    dropped: reason !== undefined,
    ...(reason ? { dropped_reason: reason } : {}),
    ...(droppedLines !== undefined ? { dropped_lines: Number(droppedLines) } : {}),
    ...(pending !== undefined ? { pending } : {}),
  };
}
