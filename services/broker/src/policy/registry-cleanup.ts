/**
 * Which session_registry rows a cleanup may tombstone. A row is selected only when every
 * guard holds; a row that is gone but held back by a guard is reported under "needs
 * review" with that guard, never selected. Pure: (rows, what is live now, config, clock).
 */
import type { SessionRegistryStatus } from '@terminal-mcp/contract';
import { qualify } from './qualified-name.js';

/** One session_registry row (effects/store/registry-store.ts stores it). */
export interface RegistryRecord {
  id: number;
  /** The host whose tmux had the session; null: this host. */
  node: string | null;
  /** As that host's tmux names it (no node prefix). */
  name: string;
  serverPid: number;
  sessionId: string;
  sessionCreated: number;
  status: SessionRegistryStatus;
  firstSeen: number;
  lastSeen: number;
  statusChangedAt: number;
  lastCommand: string | null;
  conversationId: string | null;
  notes: string | null;
  lastScreen: string | null;
  lastScreenAt: number | null;
  deletedAt: number | null;
  deletedBy: string | null;
}

export const CLEANUP_GUARDS = ['LIVE_NOW', 'PROTECTED', 'HAS_CONVERSATION', 'HAS_NOTES', 'TOO_RECENT'] as const;
export type CleanupGuard = (typeof CLEANUP_GUARDS)[number];

export const GUARD_REASONS: Record<CleanupGuard, string> = {
  LIVE_NOW: 'a tmux session by that name is alive now',
  PROTECTED: 'listed in session_lifecycle.protected_sessions',
  HAS_CONVERSATION: 'has a conversation id (resumable history)',
  HAS_NOTES: 'has operator notes (a curated record)',
  TOO_RECENT: 'last seen more recently than --min-age-days',
};

export interface CleanupPlan {
  selected: RegistryRecord[];
  needsReview: { row: RegistryRecord; guard: CleanupGuard }[];
}

/** A row's name as callers write it: `node:session` for a node's, bare for this host's. */
export const registryName = (row: Pick<RegistryRecord, 'node' | 'name'>): string => qualify(row.node, row.name);

export interface CleanupCriteria {
  /** Session names this host's tmux lists right now. */
  liveNames: ReadonlySet<string>;
  protectedNames: ReadonlySet<string>;
  minAgeDays: number;
  now: number;
}

function guardOf(row: RegistryRecord, c: CleanupCriteria, liveOnNodes: ReadonlySet<string>): CleanupGuard | null {
  const name = registryName(row);
  if (row.node === null ? c.liveNames.has(name) : liveOnNodes.has(name)) return 'LIVE_NOW';
  if (c.protectedNames.has(name)) return 'PROTECTED';
  if (row.conversationId) return 'HAS_CONVERSATION';
  if (row.notes) return 'HAS_NOTES';
  if (c.now - row.lastSeen < c.minAgeDays * 86_400_000) return 'TOO_RECENT';
  return null;
}

/** ACTIVE rows are alive and DELETED rows are already tombstones: neither is a candidate.
 * A node's session counts as alive now when the registry has it ACTIVE: the cleanup cannot
 * ask a node's tmux, and the broker's registry is the last word on it (a node that is down
 * leaves its rows ACTIVE, so its sessions are held back rather than guessed dead). */
export function planRegistryCleanup(rows: readonly RegistryRecord[], c: CleanupCriteria): CleanupPlan {
  const plan: CleanupPlan = { selected: [], needsReview: [] };
  const liveOnNodes = new Set(rows.filter((r) => r.node !== null && r.status === 'ACTIVE').map(registryName));
  for (const row of rows) {
    if (row.status !== 'MISSING' && row.status !== 'KILLED') continue;
    const guard = guardOf(row, c, liveOnNodes);
    if (guard === null) plan.selected.push(row);
    else plan.needsReview.push({ row, guard });
  }
  return plan;
}
