/**
 * Supervisor watches on `node:session` (node-names.ts), and on bindings pinned on a node:
 * the supervisor reads every watch
 * through this reader, which sends a node session's reads to that node's reader (the node's
 * read gate, status rule and identity, its continued reads audited as node:session) and
 * this host's to THE reader. A watch's target stays the name the caller gave, so its
 * events, notices and sends (input/node-route.ts) name the node.
 *
 * A watch on a node is looked at every NODE_WATCH_TICK_MS instead of on output: this host's
 * pane watcher follows this host's panes only, and a watcher per watched node session would
 * be one more ssh channel each (the same choice as waits on nodes, node-waits.ts). Each look
 * is one capture over the node's one control connection.
 */
import { AppError } from '@terminal-mcp/contract';
import type { ContinuedRead, SessionReader } from '../reads/session-reader.js';
import { hostOf } from './host-route.js';
import type { NodeSet } from './node-set.js';

/** How often a supervisor watch on a node session is looked at. */
export const NODE_WATCH_TICK_MS = 2_000;

export type SupervisorReader = Pick<SessionReader, 'resolve' | 'follow'>;

export interface NodeSupervisorRouting {
  reader: SupervisorReader;
  remote: { is(watch: { kind: string; target: string }): boolean; tickMs: number };
}

export function nodeSupervisorRouting(local: SupervisorReader, nodes: NodeSet | undefined): NodeSupervisorRouting {
  const reader: SupervisorReader = {
    async resolve(ref) {
      const route = hostOf(nodes, ref);
      if (route.node === undefined || nodes === undefined) return local.resolve(route.ref);
      if (nodes.get(route.node) === undefined) throw new AppError('NODE_UNAVAILABLE', `node ${route.node} is not configured in this broker`);
      return nodes.on(route.node, (n) => n.reader.resolve(route.ref));
    },
    follow(caller, tool, ref, options) {
      const route = hostOf(nodes, ref);
      const node = route.node;
      const n = node === undefined ? undefined : nodes?.get(node);
      // A binding on a node no longer configured stays with this host's gate, which refuses it.
      if (node === undefined || n === undefined || nodes === undefined) return local.follow(caller, tool, route.ref, options);
      // One continued read on the node's reader (its pinning and audit), asked only while
      // the node is connected; a failure on its link is NODE_UNAVAILABLE.
      const inner = n.reader.follow(caller, tool, route.ref, options);
      const onNode =
        <T>(read: () => Promise<T>) =>
        (): Promise<T> =>
          nodes.on(node, read);
      const routed: ContinuedRead = {
        target: onNode(() => inner.target()),
        screen: onNode(() => inner.screen()),
        status: onNode(() => inner.status()),
        frame: onNode(() => inner.frame()),
      };
      return routed;
    },
  };
  const is = (watch: { kind: string; target: string }): boolean => {
    if (watch.kind !== 'session' && watch.kind !== 'binding') return false;
    try {
      return hostOf(nodes, watch.kind === 'binding' ? { binding: watch.target } : { session: watch.target }).node !== undefined;
    } catch {
      return false;
    }
  };
  return { reader, remote: { is, tickMs: NODE_WATCH_TICK_MS } };
}
