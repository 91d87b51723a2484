/**
 * Reads addressed as `node:session` (node-names.ts): this host's names go the usual way,
 * a node's go to that node's reader (node-set.ts), and what comes back names the node in
 * `session` and `session_id`, so audit rows and answers never mix hosts up.
 */
import type { SessionSummary, ListedNode } from '@terminal-mcp/contract';
import type { SessionReader } from '../reads/session-reader.js';
import { qualify, splitNodeName } from './node-names.js';
import { NODE_LIST_DEADLINE_MS, type NodeRuntime, type NodeSet } from './node-set.js';

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
export async function listNodeSessions(
  nodes: NodeSet,
  filter: { nameContains?: string | undefined; readableOnly?: boolean | undefined },
): Promise<{ sessions: SessionSummary[]; nodes: ListedNode[] }> {
  const perNode = await mapBounded(nodes.names(), NODE_LIST_FAN_OUT, async (name): Promise<{ sessions: SessionSummary[]; node: ListedNode }> => {
    const n = nodes.get(name);
    if (n === undefined || n.tmux.state !== 'connected') return { sessions: [], node: nodes.listed(name) };
    try {
      const listing = await nodes.sessionsOf(name);
      const rows = await n.reader.list(filter, listing.live);
      const node: ListedNode = listing.slow
        ? {
            node: name,
            state: 'slow',
            reason: `no answer within ${NODE_LIST_DEADLINE_MS / 1000} s; ${listing.listedAt === undefined ? 'not listed before, so no rows' : `its rows as listed at ${new Date(listing.listedAt).toISOString()}`}`,
            hint: 'List again shortly; terminal_node_health probes it.',
          }
        : { node: name, state: 'up' };
      return { sessions: rows.map((r) => ({ ...r, name: qualify(name, r.name), session_id: qualify(name, r.session_id) })), node };
    } catch {
      return { sessions: [], node: { ...nodes.listed(name), state: 'down' } };
    }
  });
  return { sessions: perNode.flatMap((p) => p.sessions), nodes: perNode.map((p) => p.node) };
}
