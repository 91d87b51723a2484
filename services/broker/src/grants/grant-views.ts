/** Grants as the dashboard sees them (shared/contract/src/grants.ts): every live session
 * with its access and stored grant, grants left without a session, and the change log. */
import type { GrantEvent, GrantList, GrantView, ListedNode, SessionSummary } from '@terminal-mcp/contract';
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
import { LOCAL_NODE } from '../config/nodes-schema.js';
import { qualify } from '../nodes/node-names.js';
import { listNode } from '../nodes/node-reads.js';
import { splitQualified } from '../policy/qualified-name.js';
import type { NodeSet } from '../nodes/node-set.js';

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

type AccessRow = GrantList['sessions'][number];

/** A listed session's row: its summary as the gate judged it, the gate's grant facts on its
 * name (as its host names it), and the grant stored under its listed name, judged against
 * the identity it has now. Access is the gate's to decide; this only lays its answers out. */
function accessRow(summary: SessionSummary, facts: { whitelisted: boolean; sensitive: boolean }, stored: GrantRecord | undefined, current: SessionIdentity, now: number, foregroundShell: boolean): AccessRow {
  const { whitelisted, sensitive } = facts;
  return { ...summary, whitelisted, sensitive, grantable: !sensitive, grant: stored === undefined ? null : grantView(stored, current, now), foreground_shell: foregroundShell };
}

/** One node's sessions as access rows, named node:session, judged by the node's gate (its
 * patterns, and the grants stored under its names), and the node's state; `rows` is null
 * when the node cannot be listed now. The shell warning is this host's only: it would take
 * an ssh channel per row. */
async function nodeRows(nodes: NodeSet, node: string, grants: ReadonlyMap<string, GrantRecord>, now: number): Promise<{ rows: AccessRow[] | null; listed: ListedNode }> {
  const { runtime: n, listing, listed } = await listNode(nodes, node);
  // Slow and never listed: its sessions are not known.
  if (n === undefined || (listing.slow && listing.listedAt === undefined)) return { rows: null, listed };
  const rows = summarizeSessions(n.access, listing.live).map((summary, i): AccessRow => {
    const s = listing.live[i]!;
    const name = qualify(node, s.name);
    return accessRow({ ...summary, name, session_id: qualify(node, s.sessionId) }, n.access.grantFacts(s.name), grants.get(name), s, now, false);
  });
  return { rows, listed };
}

/** Every live session of this host and of each node that can be listed (sorted by name)
 * with its access and stored grant, plus grants whose name no live session has (a node's
 * grants while it is down: `node_down`). Facts and grants are read now. */
export async function listGrantAccess(deps: { config: BrokerConfig; tmux: TmuxAdapter; stores: StoresOf<'grants'>; access: AccessGate; nodes?: NodeSet | undefined }, now: number): Promise<GrantList> {
  const { config } = deps;
  const grants = new Map(deps.stores.grants.list().map((g) => [g.sessionName, g]));
  const nodeNames = deps.nodes?.names() ?? [];
  const [sessions, perNode] = await Promise.all([deps.tmux.listSessions(), Promise.all(nodeNames.map((node) => nodeRows(deps.nodes!, node, grants, now)))]);
  const live = new Set(sessions.map((s) => s.name));
  for (const p of perNode) for (const r of p.rows ?? []) live.add(r.name);
  const down = new Set(nodeNames.filter((_, i) => perNode[i]!.rows === null));
  const nodeOf = (name: string) => splitQualified(name, LOCAL_NODE).node;
  const summaries = summarizeSessions(deps.access, sessions);
  const rows = sessions.map((s, i) => ({ s, summary: summaries[i]! }));
  // Only where the dashboard offers an input box: one pass over /proc for all of them.
  const typable = rows.filter((r) => r.summary.input_allowed && r.s.activePane !== null).map((r) => r.s);
  const trees = await readPaneProcessTrees(typable.map((s) => ({ panePid: s.activePane?.panePid ?? 0, tmuxCommand: s.activePane?.currentCommand ?? '' })));
  const shellForeground = new Set(typable.filter((_, i) => trees[i] !== undefined && summarizeForeground(trees[i]).isShell).map((s) => s.name));
  const local = rows.map(({ s, summary }) => accessRow(summary, deps.access.grantFacts(s.name), grants.get(s.name), s, now, shellForeground.has(s.name)));
  return {
    read_enabled: config.permissions.terminal_read,
    input_enabled: config.permissions.terminal_input,
    sessions: [...local, ...perNode.flatMap((p) => p.rows ?? [])].sort((a, b) => a.name.localeCompare(b.name)),
    orphaned_grants: [...grants.values()]
      .filter((g) => !live.has(g.sessionName))
      .map((g) => {
        const node = nodeOf(g.sessionName);
        // Down: nothing says the session is gone, so only the time box is judged.
        return node !== null && down.has(node) ? { ...grantView(g, g.identity, now), node_down: true as const } : grantView(g, undefined, now);
      }),
    ...(deps.nodes !== undefined && { nodes: perNode.map((p) => p.listed) }),
  };
}
