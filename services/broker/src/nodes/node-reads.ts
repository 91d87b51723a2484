/**
 * Reads over many hosts: a batch of names on several hosts, and every node's listing. A
 * single read of `node:session` is `HostSet.read` (host-set.ts): the host decided once,
 * the answer named with the node in `session` and `session_id`, so audit rows and answers
 * never mix hosts up.
 */
import { readAppErrorData, type BatchInspectItem, type ListedNode, type SessionSummary } from '@terminal-mcp/contract';
import { qualify } from './node-names.js';
import type { Host, HostSet } from './host-set.js';
import { NODE_LIST_DEADLINE_MS, type NodeListing, type NodeRuntime, type NodeSet } from './node-set.js';

/** A batch row as the caller names things: `node:session` and `node:$id`. */
function qualifyItem(host: Host, r: BatchInspectItem): BatchInspectItem {
  const session = host.qualify(r.session);
  if (!r.ok) return { ...r, session };
  return { ...r, session, status: host.named(r.status), tail: host.named(r.tail) };
}

/** A row's error, inline (the other rows still return); only the closed error set. */
function failedItem(session: string, err: unknown): BatchInspectItem {
  const app = readAppErrorData(err);
  if (!app) throw err;
  return { session, ok: false, error_code: app.code, message: (err as Error).message };
}

/**
 * terminal_batch_inspect over several hosts: the names are grouped by host (the HostSet's
 * resolution, host-set.ts), each host's group is one batch on that host (`batchOn`; a
 * node's only while it is connected), and the rows come back in the order the names were
 * given, named as the caller named them. A node that is down or not configured fails its
 * rows only. Without names, or with this host's names only: one batch here (a listing of
 * every node's is terminal_list_sessions).
 */
export async function batchAcrossHosts(
  hosts: HostSet,
  names: readonly string[] | undefined,
  batchOn: (host: Host, names: string[] | undefined) => Promise<BatchInspectItem[]>,
): Promise<BatchInspectItem[]> {
  if (names === undefined || !names.some((n) => n.includes(':'))) return batchOn(hosts.local, names === undefined ? undefined : [...names]);
  const groups = new Map<Host, { asked: string; bare: string }[]>();
  const refused = new Map<string, BatchInspectItem>();
  for (const asked of names) {
    try {
      const { host, ref } = hosts.resolveSession(asked);
      groups.set(host, [...(groups.get(host) ?? []), { asked, bare: ref }]);
    } catch (err) {
      refused.set(asked, failedItem(asked, err));
    }
  }
  const rowsOf = new Map<string, BatchInspectItem[]>();
  await Promise.all(
    [...groups].map(async ([host, members]) => {
      const bare = members.map((m) => m.bare);
      let rows: BatchInspectItem[];
      try {
        rows = (await host.on(() => batchOn(host, bare))).map((r) => (host.node === undefined ? r : qualifyItem(host, r)));
      } catch (err) {
        rows = members.map((m) => failedItem(m.asked, err));
      }
      // Rows name the session as its host does (with the node); hand each asked name its rows.
      for (const m of members) {
        const named = host.qualify(m.bare);
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
