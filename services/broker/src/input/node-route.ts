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
import type { Host } from '../nodes/host-set.js';
import type { InputCaller, InputDeps } from './input-deps.js';

export interface InputRoute {
  /** The caller with the target host's parts (the same caller for this host). */
  caller: InputCaller;
  /** The target as its host names it (no node prefix). */
  target: TargetRef;
  /** The node, or undefined for this host. */
  node: string | undefined;
  /** The Host the target is on (answer through `answerOn(route.host, …)`). */
  host: Host;
}

/** Which host `target` is on (`hosts.resolve`), and the caller's deps for that host.
 * SESSION_NOT_FOUND for a node that is not configured; NODE_UNAVAILABLE is decided by the
 * node's gate, after the name gates (a refused name learns nothing of the node's state). */
export function routeInput(caller: InputCaller, target: TargetRef): InputRoute {
  const hosts = caller.deps.hosts;
  // An orphan binding resolves to this host here only to be refused in input's own words.
  const { host, ref: routed } = hosts.resolve(target, 'local');
  if (host.node === undefined) {
    if (target.binding !== undefined && hosts.onNode(target)) {
      const pinned = caller.deps.input.bindings.get(target.binding)?.node ?? '';
      throw new AppError('NODE_UNAVAILABLE', `the binding is pinned on node ${pinned}, which is no longer configured: nothing was sent`);
    }
    return { caller, target: routed, node: undefined, host };
  }
  if (host.delivery === undefined || host.runSignals === undefined) throw new AppError('INPUT_NOT_ALLOWED', `input to node ${host.node} is not available in this broker: nothing was sent`);
  return { caller: { ...caller, deps: depsOn(caller.deps, host, host.delivery, host.runSignals) }, target: routed, node: host.node, host };
}

/** The input deps with a node Host's parts in place of this host's: its policy, tmux,
 * gate, reader, delivery, run channels and process reads. The audit log, the pane locks,
 * the review queue and the bindings stay this broker's. */
function depsOn(deps: InputDeps, host: Host, delivery: NonNullable<Host['delivery']>, run: NonNullable<Host['runSignals']>): InputDeps {
  const access: AccessGate = {
    ...host.access,
    // The name gates first (input switch, deny patterns, sensitive names), then the node
    // must be up, then the node's tmux resolves the name exactly.
    async inputTarget(ref, kind) {
      host.access.checkInputName(ref, kind);
      host.connected();
      return host.access.inputTarget(ref, kind);
    },
  };
  return {
    ...deps,
    config: host.policy,
    tmux: host.tmux,
    access,
    reader: host.reader,
    input: {
      ...deps.input,
      delivery,
      processTree: (panePid, tmuxCommand) => host.processTree(panePid, tmuxCommand),
      run,
      // This host's /proc says nothing of a node's processes: the secret entry's ssh
      // rule then refuses (policy/credential-reader.ts).
      terminalRead: undefined,
    },
  };
}

/** A failure on a node's link as the caller sees it: NODE_UNAVAILABLE with why, keeping
 * what the input path said (for example that the text may have reached the pane). Not
 * `Host.outageOf`, which answers with the node's state alone. */
function nodeFailure(host: Host, err: unknown): unknown {
  const code = readAppErrorData(err)?.code;
  if (code !== 'TMUX_UNAVAILABLE' && code !== 'TIMEOUT') return err;
  let state = `node ${host.name} did not answer`;
  let hint = `Call terminal_node_health for node ${host.name}'s state.`;
  try {
    host.connected();
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
 * `session` and `session_id` carry the node, a lost link is NODE_UNAVAILABLE. Not
 * `Host.on`: the send itself audits and refuses (the name gates before the node's state),
 * so a down node is not refused ahead of it. */
export function answerWithNode<T extends NodeNamed>(caller: InputCaller, target: TargetRef, send: () => Promise<T>): Promise<T> {
  let host: Host;
  try {
    host = caller.deps.hosts.resolve(target).host;
  } catch {
    return send(); // the attempt audits and answers the unknown node (or the orphan binding)
  }
  return answerOn(host, send);
}

/** `answerWithNode` on a Host already resolved (a resumed run's). */
export async function answerOn<T extends NodeNamed>(host: Host, send: () => Promise<T>): Promise<T> {
  if (host.node === undefined) return send();
  try {
    const r = await send();
    // A name as the node has it never holds a `:` (tmux stores none); one that does is
    // the caller's own `node:session`, echoed by a refusal before the target resolved.
    const bare = (v: string | null | undefined): v is string => typeof v === 'string' && !v.includes(':');
    return {
      ...r,
      ...(bare(r.session) && { session: host.qualify(r.session) }),
      ...(bare(r.session_id) && { session_id: host.qualify(r.session_id) }),
    };
  } catch (err) {
    throw nodeFailure(host, err);
  }
}
