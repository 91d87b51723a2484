/**
 * Input to `node:session` (nodes/node-names.ts): the input attempt (attempt.ts) runs
 * unchanged, with the node's parts in place of this host's — the node's access gate (its
 * read and input patterns, every other rule the top-level one), its tmux adapter and
 * reader, its delivery (tmux's own paste buffer and keys, through ssh) and its process
 * tree read on the node. The caller's principal, the audit log, the pane locks and the
 * review queue are this broker's, shared with local input.
 *
 * A binding pinned on a node (bindings.db `node`) goes to that node the same way, as the
 * binding: the node's gate finds it, resolves it on the node's tmux and checks the pinned
 * pane's identity there.
 *
 * terminal_run's completion channel is the node's too: its FIFO pair is on the node
 * (effects/ssh/node-run-fifos.ts), the end and the output are read on the node's tmux.
 */
import { AppError, readAppErrorData } from '@terminal-mcp/contract';
import type { AccessGate } from '../access/gate.js';
import type { TargetRef } from '../access/target.js';
import { hostOf } from '../nodes/host-route.js';
import { qualify } from '../nodes/node-names.js';
import type { NodeSet } from '../nodes/node-set.js';
import type { InputCaller } from './input-deps.js';

export interface InputRoute {
  /** The caller with the target host's parts (the same caller for this host). */
  caller: InputCaller;
  /** The target as its host names it (no node prefix). */
  target: TargetRef;
  /** The node, or undefined for this host. */
  node: string | undefined;
}

/** Which host `target` is on, and the caller's deps for that host. SESSION_NOT_FOUND for a
 * node that is not configured; NODE_UNAVAILABLE is decided by the node's gate, after the
 * name gates (a refused name learns nothing of the node's state). */
export function routeInput(caller: InputCaller, target: TargetRef): InputRoute {
  const nodes = caller.deps.nodes;
  const { node, ref: routed } = hostOf(nodes, target);
  if (node === undefined || nodes === undefined) return { caller, target: routed, node: undefined };
  const n = nodes.get(node);
  if (n === undefined) {
    if (target.binding !== undefined) throw new AppError('NODE_UNAVAILABLE', `the binding is pinned on node ${node}, which is no longer configured: nothing was sent`);
    throw new AppError('SESSION_NOT_FOUND', 'no such node');
  }
  if (n.input === undefined) throw new AppError('INPUT_NOT_ALLOWED', `input to node ${node} is not available in this broker: nothing was sent`);
  const on = node;
  const access: AccessGate = {
    ...n.access,
    // The name gates first (input switch, deny patterns, sensitive names), then the node
    // must be up, then the node's tmux resolves the name exactly.
    async inputTarget(ref, kind) {
      n.access.checkInputName(ref, kind);
      nodes.connected(on);
      return n.access.inputTarget(ref, kind);
    },
  };
  const deps = caller.deps;
  return {
    caller: {
      ...caller,
      deps: {
        ...deps,
        config: n.policy,
        tmux: n.tmux,
        access,
        reader: n.reader,
        input: {
          ...deps.input,
          delivery: n.input.delivery,
          processTree: (panePid, tmuxCommand) => n.input?.processTree(panePid, tmuxCommand) ?? Promise.reject(new AppError('INTERNAL', 'node input effects went away')),
          run: n.input.run,
          // This host's /proc says nothing of a node's processes: the secret entry's ssh
          // rule then refuses (policy/credential-reader.ts).
          terminalRead: undefined,
        },
      },
    },
    target: routed,
    node,
  };
}

/** A failure on a node's link as the caller sees it: NODE_UNAVAILABLE with why, keeping
 * what the input path said (for example that the text may have reached the pane). */
function nodeFailure(nodes: NodeSet, node: string, err: unknown): unknown {
  const code = readAppErrorData(err)?.code;
  if (code !== 'TMUX_UNAVAILABLE' && code !== 'TIMEOUT') return err;
  let state = `node ${node} did not answer`;
  let hint = `Call terminal_node_health for node ${node}'s state.`;
  try {
    nodes.connected(node);
  } catch (down) {
    if (down instanceof AppError) {
      state = down.message;
      hint = down.hint ?? hint;
    }
  }
  return new AppError('NODE_UNAVAILABLE', `${state}: ${err instanceof Error ? err.message : 'the input failed'}`, hint);
}

type NodeNamed = { session?: string | null; session_id?: string | null };

/** Runs a send whose target may be `node:session` and answers as a read on a node does:
 * `session` and `session_id` carry the node, a lost link is NODE_UNAVAILABLE. */
export async function answerWithNode<T extends NodeNamed>(caller: InputCaller, target: TargetRef, send: () => Promise<T>): Promise<T> {
  const nodes = caller.deps.nodes;
  if (nodes === undefined) return send();
  let node: string | undefined;
  try {
    node = hostOf(nodes, target).node;
  } catch {
    return send(); // the attempt audits and answers the unknown node
  }
  if (node === undefined) return send();
  // A binding pinned on a node no longer configured: the attempt refuses it.
  if (nodes.get(node) === undefined) return send();
  const on = node;
  try {
    const r = await send();
    // A name as the node has it never holds a `:` (tmux stores none); one that does is
    // the caller's own `node:session`, echoed by a refusal before the target resolved.
    const bare = (v: string | null | undefined): v is string => typeof v === 'string' && !v.includes(':');
    return {
      ...r,
      ...(bare(r.session) && { session: qualify(on, r.session) }),
      ...(bare(r.session_id) && { session_id: qualify(on, r.session_id) }),
    };
  } catch (err) {
    throw nodeFailure(nodes, on, err);
  }
}
