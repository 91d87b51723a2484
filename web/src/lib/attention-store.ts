/**
 * The header's "needs attention" count, shared by the layout (which shows it, puts it in
 * the tab title and sends desktop notifications) and the dashboard (which knows it live).
 * Other pages ask `/api/attention` now and then. Desktop notifications are opt-in: the
 * permission is asked only from the operator's click, never on load.
 */
import { writable } from 'svelte/store';

export interface AttentionSummary {
  count: number;
  /** Sessions waiting for input now (for notifications). */
  waiting: string[];
  /** The latest notices for a person (agents' notify_user and terminal_request_human,
   * supervisor events), from /api/attention; absent where the page counted live. */
  notices?: { id: number; kind: string; level: string; session: string | null; message: string; from: string }[];
}

/** Notices newer than the last one seen; none on the first look (no flood on load). */
export function newNotices<T extends { id: number }>(lastSeen: number | null, notices: readonly T[]): T[] {
  if (lastSeen === null) return [];
  return notices.filter((n) => n.id > lastSeen);
}

export const attention = writable<AttentionSummary | null>(null);

export const NOTIFY_STORAGE_KEY = 'terminal-mcp.notify';

export function notificationsWanted(): boolean {
  try {
    return localStorage.getItem(NOTIFY_STORAGE_KEY) === 'on';
  } catch {
    return false;
  }
}

export function setNotificationsWanted(on: boolean): void {
  try {
    if (on) localStorage.setItem(NOTIFY_STORAGE_KEY, 'on');
    else localStorage.removeItem(NOTIFY_STORAGE_KEY);
  } catch {
    /* storage disabled */
  }
}

/** Names that are waiting now and were not before. */
export function newlyWaiting(before: readonly string[] | null, now: readonly string[]): string[] {
  if (before === null) return [];
  const prev = new Set(before);
  return now.filter((n) => !prev.has(n));
}
