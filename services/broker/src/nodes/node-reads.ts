/**
 * Reads addressed as `node:session` (node-names.ts): this host's names go the usual way,
 * a node's go to that node's reader (node-set.ts), and what comes back names the node in
 * `session` and `session_id`, so audit rows and answers never mix hosts up.
 */
import type { SessionSummary, ListedNode } from '@terminal-mcp/contract';
import type { ListedSession } from '../effects/tmux/types.js';
import type { SessionReader } from '../reads/session-reader.js';
import { qualify, splitNodeName } from './node-names.js';
import type { NodeSet } from './node-set.js';

interface NodeNamed {
  session: string;
  session_id: string;
}

/** `read` on the node's reader for `node:session`, or `local` with this host's name. */
export async function routeRead<T extends NodeNamed>(
  nodes: NodeSet | undefined,
  qualified: string,
  read: (reader: SessionReader, session: string) => Promise<T>,
  local: (session: string) => Promise<T>,
): Promise<T> {
  if (!qualified.includes(':')) return local(qualified);
  const { node, session } = splitNodeName(qualified, nodes?.names() ?? []);
  if (node === undefined || nodes === undefined) return local(session);
  const n = nodes.connected(node);
  try {
    const r = await read(n.reader, session);
    return { ...r, session: qualify(node, r.session), session_id: qualify(node, r.session_id) };
  } catch (err) {
    throw nodes.unavailableOr(node, err);
  }
}

/** Every node's sessions (readable ones only when asked), named node:session, and every
 * node's state: a node that is down is listed as down, never as a node without sessions. */
export async function listNodeSessions(
  nodes: NodeSet,
  filter: { nameContains?: string | undefined; readableOnly?: boolean | undefined },
): Promise<{ sessions: SessionSummary[]; nodes: ListedNode[] }> {
  const perNode = await Promise.all(
    nodes.names().map(async (name): Promise<{ sessions: SessionSummary[]; node: ListedNode }> => {
      const n = nodes.get(name);
      if (n === undefined || n.tmux.state !== 'connected') return { sessions: [], node: nodes.listed(name) };
      try {
        const live: ListedSession[] = await n.tmux.listSummaries();
        const rows = await n.reader.list(filter, live);
        return { sessions: rows.map((r) => ({ ...r, name: qualify(name, r.name), session_id: qualify(name, r.session_id) })), node: { node: name, state: 'up' } };
      } catch {
        return { sessions: [], node: { ...nodes.listed(name), state: 'down' } };
      }
    }),
  );
  return { sessions: perNode.flatMap((p) => p.sessions), nodes: perNode.map((p) => p.node) };
}
