/**
 * THE rule for which host a target is on, used by every path that may reach a node's pane
 * (reads of the supervisor, input, waits, live views): a binding is on the host it is
 * pinned on (bindings.db's `node`) and keeps its name there (that host's gate finds it);
 * `node:session` is on that node, named there by its bare session name with the same pane
 * (a pane named inside a node session is that pane there, never the active one); a bare
 * name or `local:session` is this host's. What each path does with an unknown or down node
 * is its own (it answers in its own terms), so this only says where.
 */
import type { TargetRef } from '../access/target.js';
import { splitNodeName } from './node-names.js';
import type { NodeSet } from './node-set.js';

export interface HostRoute<R> {
  /** undefined: this host. A name here may be a node no longer configured (a binding's). */
  readonly node: string | undefined;
  /** The target as that host names it. */
  readonly ref: R;
}

/** Where `ref` is; SESSION_NOT_FOUND ("no such node") for `x:session` whose `x` is not a
 * configured node (splitNodeName). */
export function hostOf(nodes: NodeSet | undefined, ref: TargetRef): HostRoute<TargetRef> {
  if (ref.binding !== undefined) return { node: nodes?.bindingNode(ref.binding), ref };
  if (!ref.session.includes(':')) return { node: undefined, ref };
  const { node, session } = splitNodeName(ref.session, nodes?.names() ?? []);
  return { node, ref: { session, pane: ref.pane } };
}

/** `hostOf` for a session name alone (waits, live views). */
export function hostOfSession(nodes: NodeSet | undefined, qualified: string): HostRoute<string> {
  const { node, ref } = hostOf(nodes, { session: qualified });
  return { node, ref: (ref as { session: string }).session };
}
