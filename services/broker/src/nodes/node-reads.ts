/**
 * Reads addressed as `node:session` (node-names.ts): this host's names go the usual way,
 * a node's go to that node's reader (node-set.ts), and what comes back names the node in
 * `session` and `session_id`, so audit rows and answers never mix hosts up.
 */
import { readAppErrorData, type BatchInspectItem, type ListedNode, type SessionSummary } from '@terminal-mcp/contract';
import type { SessionReader } from '../reads/session-reader.js';
import { qualify, splitNodeName } from './node-names.js';
import { hostOfSession } from './host-route.js';
import { NODE_LIST_DEADLINE_MS, type NodeListing, type NodeRuntime, type NodeSet } from './node-set.js';

interface NodeNamed {
  session: string;
  session_id: string;
}

/** `read` on the node's reader (and its transcripts, `node`) for `node:session`, or `local`
 * with this host's name. */
export async function routeRead<T extends NodeNamed>(
  nodes: NodeSet | undefined,
  qualified: string,
  read: (reader: SessionReader, session: string, node: NodeRuntime) => Promise<T>,
  local: (session: string) => Promise<T>,
): Promise<T> {
  if (!qualified.includes(':')) return local(qualified);
  const { node, session } = splitNodeName(qualified, nodes?.names() ?? []);
  if (node === undefined || nodes === undefined) return local(session);
  const r = await nodes.on(node, (n) => read(n.reader, session, n));
  return { ...r, session: qualify(node, r.session), session_id: qualify(node, r.session_id) };
}

/** A batch row as the caller names things: `node:session` and `node:$id`. */
function qualifyItem(node: string, r: BatchInspectItem): BatchInspectItem {
  const session = qualify(node, r.session);
  if (!r.ok) return { ...r, session };
  return {
    ...r,
    session,
    status: { ...r.status, session: qualify(node, r.status.session), session_id: qualify(node, r.status.session_id) },
    tail: { ...r.tail, session: qualify(node, r.tail.session), session_id: qualify(node, r.tail.session_id) },
  };
}

/** A row's error, inline (the other rows still return); only the closed error set. */
function failedItem(session: string, err: unknown): BatchInspectItem {
  const app = readAppErrorData(err);
  if (!app) throw err;
  return { session, ok: false, error_code: app.code, message: (err as Error).message };
}

/**
 * terminal_batch_inspect over several hosts: the names are grouped by host (THE rule,
 * host-route.ts), each host's group is one batch on that host's reader (`local` for this
 * host's, `onNode` on a node's, which must be connected), and the rows come back in the
 * order the names were given, named as the caller named them. A node that is down or not
 * configured fails its rows only. Without names: this host's readable sessions (a listing
 * of every node's is terminal_list_sessions).
 */
export async function routeBatch(
  nodes: NodeSet | undefined,
  names: readonly string[] | undefined,
  local: (names: string[] | undefined) => Promise<BatchInspectItem[]>,
  onNode: (node: NodeRuntime, names: string[]) => Promise<BatchInspectItem[]>,
): Promise<BatchInspectItem[]> {
  if (names === undefined || !names.some((n) => n.includes(':'))) return local(names === undefined ? undefined : [...names]);
  const groups = new Map<string | undefined, { asked: string; bare: string }[]>();
  const refused = new Map<string, BatchInspectItem>();
  for (const asked of names) {
    try {
      const { node, ref } = hostOfSession(nodes, asked);
      groups.set(node, [...(groups.get(node) ?? []), { asked, bare: ref }]);
    } catch (err) {
      refused.set(asked, failedItem(asked, err));
    }
  }
  const rowsOf = new Map<string, BatchInspectItem[]>();
  await Promise.all(
    [...groups].map(async ([node, members]) => {
      const bare = members.map((m) => m.bare);
      let rows: BatchInspectItem[];
      try {
        rows = node === undefined || nodes === undefined ? await local(bare) : (await nodes.on(node, (n) => onNode(n, bare))).map((r) => qualifyItem(node, r));
      } catch (err) {
        rows = members.map((m) => failedItem(m.asked, err));
      }
      // Rows name the session as its host does (with the node); hand each asked name its rows.
      for (const m of members) {
        const named = node === undefined ? m.bare : qualify(node, m.bare);
        rowsOf.set(m.asked, rows.filter((r) => r.session === named || r.session === m.asked));
      }
    }),
  );
  return names.flatMap((asked) => refused.get(asked) ?? rowsOf.get(asked) ?? []);
}

/** Nodes whose listings are asked for at once: a list of many nodes answers in waves, so
 * their answers are not all parsed in one turn of the event loop. */
export const NODE_LIST_FAN_OUT = 16;

/** `fn` over `items`, at most `limit` at a time, answers in the items' order. */
async function mapBounded<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

/** Every node's sessions (readable ones only when asked), named node:session, and every
 * node's state: a node that is down is listed as down, never as a node without sessions; a
 * node that did not answer within the deadline is `slow`, with the sessions of its last
 * listing (access and filters applied now), its reason naming that listing's time. */
/** One node's sessions as tmux lists them and the node's state as a listing shows it:
 * down (not connected, or its listing failed: no listing), slow (its last listing, if
 * there was one, named with that listing's time), or up. For every list of node sessions
 * (terminal_list_sessions, the dashboard's grants list). */
export async function listNode(
  nodes: NodeSet,
  name: string,
): Promise<{ runtime: NodeRuntime; listing: NodeListing; listed: ListedNode } | { runtime: undefined; listing: undefined; listed: ListedNode }> {
  const n = nodes.get(name);
  if (n === undefined || n.tmux.state !== 'connected') return { runtime: undefined, listing: undefined, listed: nodes.listed(name) };
  try {
    const listing = await nodes.sessionsOf(name);
    const listed: ListedNode = listing.slow
      ? {
          node: name,
          state: 'slow',
          reason: `no answer within ${NODE_LIST_DEADLINE_MS / 1000} s; ${listing.listedAt === undefined ? 'not listed before, so no rows' : `its rows as listed at ${new Date(listing.listedAt).toISOString()}`}`,
          hint: 'List again shortly; terminal_node_health probes it.',
        }
      : { node: name, state: 'up' };
    return { runtime: n, listing, listed };
  } catch {
    return { runtime: undefined, listing: undefined, listed: { ...nodes.listed(name), state: 'down' } };
  }
}

export async function listNodeSessions(
  nodes: NodeSet,
  filter: { nameContains?: string | undefined; readableOnly?: boolean | undefined },
): Promise<{ sessions: SessionSummary[]; nodes: ListedNode[] }> {
  const perNode = await mapBounded(nodes.names(), NODE_LIST_FAN_OUT, async (name): Promise<{ sessions: SessionSummary[]; node: ListedNode }> => {
    const { runtime, listing, listed } = await listNode(nodes, name);
    if (runtime === undefined) return { sessions: [], node: listed };
    try {
      const rows = await runtime.reader.list(filter, listing.live);
      return { sessions: rows.map((r) => ({ ...r, name: qualify(name, r.name), session_id: qualify(name, r.session_id) })), node: listed };
    } catch {
      return { sessions: [], node: { ...nodes.listed(name), state: 'down' } };
    }
  });
  return { sessions: perNode.flatMap((p) => p.sessions), nodes: perNode.map((p) => p.node) };
}
