/**
 * Attention first: which sessions the operator should look at now. Waiting for input
 * first, then erroring (the broker could not tell its status, or its live view failed),
 * then running, then idle, then unknown, and sessions the operator cannot read last.
 * Pure: the dashboard sorts with it and the header counts with it.
 */
import type { SessionView } from './session-view.js';

export type AttentionLevel = 'waiting' | 'error' | 'running' | 'idle' | 'unknown' | 'restricted';

const RANK: Record<AttentionLevel, number> = { waiting: 0, error: 1, running: 2, idle: 3, unknown: 4, restricted: 5 };

/** `liveError`: the page's live view of this session reported an error. */
export function attentionLevel(s: SessionView, liveError = false): AttentionLevel {
  if (!s.read_allowed) return 'restricted';
  if (s.status?.status === 'WAITING_INPUT' || s.status?.status === 'WAITING_HUMAN') return 'waiting';
  if (liveError || !s.status) return 'error';
  switch (s.status.status) {
    case 'RUNNING':
      return 'running';
    case 'IDLE':
      return 'idle';
    default:
      return 'unknown';
  }
}

export function needsAttention(level: AttentionLevel): boolean {
  return level === 'waiting' || level === 'error';
}

/** A stable sort: equal levels keep the broker's order (by name). */
export function sortByAttention<T extends SessionView>(sessions: readonly T[], liveErrors: ReadonlySet<string> = new Set()): T[] {
  return sessions
    .map((s, i) => ({ s, i, r: RANK[attentionLevel(s, liveErrors.has(s.name))] }))
    .sort((a, b) => a.r - b.r || a.i - b.i)
    .map((x) => x.s);
}

export function attentionCount(sessions: readonly SessionView[], liveErrors: ReadonlySet<string> = new Set()): number {
  return sessions.filter((s) => needsAttention(attentionLevel(s, liveErrors.has(s.name)))).length;
}

/** The browser tab's title: the count first, so it shows in a narrow tab. */
export function titleWithCount(base: string, count: number): string {
  return count > 0 ? `(${count}) ${base}` : base;
}
