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
import type { ContinuedRead, SessionReader } from '../reads/session-reader.js';
import type { HostSet } from './host-set.js';

/** How often a supervisor watch on a node session is looked at. */
export const NODE_WATCH_TICK_MS = 2_000;

export type SupervisorReader = Pick<SessionReader, 'resolve' | 'follow'>;

export interface NodeSupervisorRouting {
  reader: SupervisorReader;
  remote: { is(watch: { kind: string; target: string }): boolean; tickMs: number };
}

export function nodeSupervisorRouting(hosts: HostSet): NodeSupervisorRouting {
  const reader: SupervisorReader = {
    async resolve(ref) {
      // A binding on a node no longer configured: NODE_UNAVAILABLE (HostSet.resolve).
      const { host, ref: there } = hosts.resolve(ref);
      return host.on(() => host.reader.resolve(there));
    },
    follow(caller, tool, ref, options) {
      // A binding on a node no longer configured stays with this host's gate, which refuses it.
      const { host, ref: there } = hosts.resolve(ref, 'local');
      const inner = host.reader.follow(caller, tool, there, options);
      if (host.node === undefined) return inner;
      // One continued read on the node's reader (its pinning and audit), asked only while
      // the node is connected; a failure on its link is NODE_UNAVAILABLE.
      const routed: ContinuedRead = {
        target: () => host.on(() => inner.target()),
        screen: () => host.on(() => inner.screen()),
        status: () => host.on(() => inner.status()),
        frame: () => host.on(() => inner.frame()),
      };
      return routed;
    },
  };
  const is = (watch: { kind: string; target: string }): boolean => {
    if (watch.kind !== 'session' && watch.kind !== 'binding') return false;
    try {
      return hosts.onNode(watch.kind === 'binding' ? { binding: watch.target } : { session: watch.target });
    } catch {
      return false;
    }
  };
  return { reader, remote: { is, tickMs: NODE_WATCH_TICK_MS } };
}
