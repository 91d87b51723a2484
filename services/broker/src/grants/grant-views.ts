/** Grants as the dashboard sees them (shared/contract/src/grants.ts): every live session
 * with its access and stored grant, grants left without a session, and the change log. */
import type { GrantEvent, GrantList, GrantView } from '@terminal-mcp/contract';
import type { AccessGate } from '../access/gate.js';
import type { BrokerConfig } from '../config/schema.js';
import type { StoresOf } from '../capabilities.js';
import type { TmuxAdapter } from '../effects/tmux/types.js';
import { type GrantEventRecord, type GrantFlags } from '../effects/store/grants-store.js';
import { readPaneProcessTrees } from '../effects/proc/process-tree.js';
import { summarizeForeground } from '../policy/foreground.js';
import { grantState, type GrantRecord } from '../policy/grants.js';
import type { SessionIdentity } from '../policy/identity.js';
import { summarizeSessions } from '../reads/session-reader.js';

const isoMs = (ms: number) => new Date(ms).toISOString();
const isoSeconds = (s: number) => new Date(s * 1000).toISOString();

const pinnedView = (id: SessionIdentity) => ({ server_pid: id.serverPid, session_id: id.sessionId, created: isoSeconds(id.created) });

/** `current`: the identity of the live session with the grant's name, if any. */
export function grantView(g: GrantRecord, current: SessionIdentity | undefined, now: number): GrantView {
  return {
    session: g.sessionName,
    read: g.read,
    input: g.input,
    state: grantState(g, current, now),
    expires_at: g.expiresAt === null ? null : isoMs(g.expiresAt),
    granted_by: g.grantedBy,
    created_at: isoMs(g.createdAt),
    updated_at: isoMs(g.updatedAt),
    pinned: pinnedView(g.identity),
  };
}

const flagsView = (f: GrantFlags) => ({ read: f.read, input: f.input, expires_at: f.expiresAt === null ? null : isoMs(f.expiresAt) });

export function grantEventView(e: GrantEventRecord): GrantEvent {
  return {
    id: e.id,
    at: isoMs(e.at),
    actor: e.actor,
    action: e.action,
    session: e.sessionName,
    after: flagsView(e.after),
    before: e.before === null ? null : flagsView(e.before),
    pinned: pinnedView(e.identity),
  };
}

/** Every live session (sorted by name) with its access and stored grant, plus grants whose
 * name no live session has. Facts and grants are read now. */
export async function listGrantAccess(deps: { config: BrokerConfig; tmux: TmuxAdapter; stores: StoresOf<'grants'>; access: AccessGate }, now: number): Promise<GrantList> {
  const { config } = deps;
  const sessions = await deps.tmux.listSessions();
  const grants = new Map(deps.stores.grants.list().map((g) => [g.sessionName, g]));
  const live = new Set(sessions.map((s) => s.name));
  const summaries = summarizeSessions(deps.access, sessions);
  const rows = sessions.map((s, i) => ({ s, summary: summaries[i]! }));
  // Only where the dashboard offers an input box: one pass over /proc for all of them.
  const typable = rows.filter((r) => r.summary.input_allowed && r.s.activePane !== null).map((r) => r.s);
  const trees = await readPaneProcessTrees(typable.map((s) => ({ panePid: s.activePane?.panePid ?? 0, tmuxCommand: s.activePane?.currentCommand ?? '' })));
  const shellForeground = new Set(typable.filter((_, i) => trees[i] !== undefined && summarizeForeground(trees[i]).isShell).map((s) => s.name));
  return {
    read_enabled: config.permissions.terminal_read,
    input_enabled: config.permissions.terminal_input,
    sessions: rows
      .map(({ s, summary }) => {
        const stored = grants.get(s.name);
        // Access is the gate's to decide; this only lays its answers out.
        const { whitelisted, sensitive } = deps.access.grantFacts(s.name);
        return {
          ...summary,
          whitelisted,
          sensitive,
          grantable: !sensitive,
          grant: stored === undefined ? null : grantView(stored, s, now),
          foreground_shell: shellForeground.has(s.name),
        };
      })
      .sort((a, b) => a.name.localeCompare(b.name)),
    orphaned_grants: [...grants.values()].filter((g) => !live.has(g.sessionName)).map((g) => grantView(g, undefined, now)),
  };
}
