/**
 * The Host seam (issue 47): this machine and every node behind one interface. createBroker
 * builds one `HostSet` (start-broker.ts `assembleDeps`) with this machine as one entry and
 * each configured node through one `hostFor`; a procedure asks it once where a target is
 * (`resolve`), hands the use case that `Host`, and names the answer for the caller on the
 * way out (`Host.named`). This is the only place that decides "this host or a node?":
 *
 *  - a binding is on the host it is pinned on (bindings.db's `node`) and keeps its name
 *    there (that host's gate finds it);
 *  - `node:session` is on that node, named there by its bare session name with the same
 *    pane (a pane named inside a node session is that pane there, never the active one);
 *  - a bare name or `local:session` is this host's;
 *  - `x:session` whose `x` is not a configured node is SESSION_NOT_FOUND ("no such node",
 *    node-names.ts), before anything is read.
 *
 * Whether a node must be connected is the use's: `Host.on` runs a call on the host and,
 * on a node, refuses it NODE_UNAVAILABLE (with the node's hint) while the node is down and
 * turns a failure because its link went down meanwhile into NODE_UNAVAILABLE too; a live
 * view is routed to a down node all the same (its stream says so).
 */
import { AppError } from '@terminal-mcp/contract';
import type { AccessGate } from '../access/gate.js';
import type { TargetRef } from '../access/target.js';
import type { BrokerConfig } from '../config/schema.js';
import type { NodeLifecycleEffects } from '../effects/ssh/node-lifecycle.js';
import type { TmuxAdapter } from '../effects/tmux/types.js';
import type { PaneProcessFacts } from '../policy/foreground.js';
import type { SessionReader } from '../reads/session-reader.js';
import type { TranscriptReads } from '../transcripts/transcript-reads.js';
import { LOCAL_NODE } from '../config/nodes-schema.js';
import { qualify, splitNodeName } from './node-names.js';
import type { NodeInputEffects, NodeRuntime, NodeSet } from './node-set.js';

/** A host's session effects for launch profiles (lifecycle/): new-session and conditional
 * kill, and real paths of directories resolved ON that host. This host's are
 * effects/tmux/session-lifecycle.ts with a local realpath, a node's are
 * effects/ssh/node-lifecycle.ts: the same shape. */
export type HostLifecycle = NodeLifecycleEffects;
type PaneDelivery = NodeInputEffects['delivery'];
type RunSignals = NodeInputEffects['run'];

/** Answers that name a session: the caller sees `node:session` and `node:$id`. */
export interface SessionNamed {
  session: string;
  session_id: string;
}

export interface Host {
  /** `local` for this machine, else the node's configured name. */
  readonly name: string;
  /** undefined: this machine. */
  readonly node: string | undefined;
  /** The broker's config as this host's gate applies it (a node's own patterns). */
  readonly policy: BrokerConfig;
  readonly tmux: TmuxAdapter;
  /** THE access gate for this host's sessions. */
  readonly access: AccessGate;
  /** THE reader of this host's panes, over `access`. */
  readonly reader: SessionReader;
  /** Typing into this host's panes and re-reading a pinned pane's identity; absent: input
   * to this node is refused (no input effects were built). */
  readonly delivery: PaneDelivery | undefined;
  /** terminal_run's completion channels on this host; absent with `delivery`. */
  readonly runSignals: RunSignals | undefined;
  /** A pane's process tree, read on this host (the guarded-command and foreground gates). */
  processTree(panePid: number, currentCommand: string): Promise<PaneProcessFacts>;
  /** Cursors, read_since, DEAD reads and export; absent: a node built without a recorder. */
  readonly transcripts: TranscriptReads | undefined;
  /** Launch profiles' session effects on this host; absent: none built for this node. */
  readonly lifecycle: HostLifecycle | undefined;
  /** A session's name or id as callers see it (`gpu:agent-1`, `gpu:$3` on a node). */
  qualify(nameOrId: string): string;
  /** `answer` with its `session` and `session_id` as callers see them. */
  named<T extends SessionNamed>(answer: T): T;
  /** NODE_UNAVAILABLE (with the node's hint) when this host cannot be reached now. */
  connected(): void;
  /** `run` on this host: on a node, only while it is connected, and a failure because its
   * link went down meanwhile is NODE_UNAVAILABLE. */
  on<T>(run: () => Promise<T>): Promise<T>;
  /** A failure of a call on this host, as NODE_UNAVAILABLE when a node went down under it. */
  outageOf(err: unknown): unknown;
}

/** Where a target is and how that host names it. */
export interface Resolved<R> {
  readonly host: Host;
  readonly ref: R;
}

export interface HostSet {
  /** This machine. */
  readonly local: Host;
  /** The configured nodes' names. */
  nodeNames(): string[];
  /** The node's host, or undefined for a name that is not configured. */
  node(name: string): Host | undefined;
  /** This host for undefined, else `node(name)` (a profile's or a record's `node`). */
  of(node: string | undefined): Host | undefined;
  /** Where `ref` is (the rules above). A binding pinned on a node no longer configured:
   * NODE_UNAVAILABLE, or with `orphans: 'local'` this host, whose gate refuses it (it sees
   * only its own bindings). */
  resolve(ref: TargetRef, orphans?: 'refuse' | 'local'): Resolved<TargetRef>;
  /** `resolve` for a session name alone (reads, waits, live views, lifecycle). */
  resolveSession(qualified: string): Resolved<string>;
  /** Whether `ref` is on a node (a binding on an unconfigured node counts as a node's). */
  onNode(ref: TargetRef): boolean;
  /** `read` on the host of `qualified` (`Host.on`), its answer named as the caller names it. */
  read<T extends SessionNamed>(qualified: string, read: (host: Host, session: string) => Promise<T>): Promise<T>;
}

/** This machine's parts (the composition root's). */
export interface LocalHostParts {
  readonly policy: BrokerConfig;
  readonly tmux: TmuxAdapter;
  readonly access: AccessGate;
  readonly reader: SessionReader;
  readonly delivery: PaneDelivery;
  readonly runSignals: RunSignals;
  processTree(panePid: number, currentCommand: string): Promise<PaneProcessFacts>;
  readonly transcripts: TranscriptReads;
  readonly lifecycle: HostLifecycle;
}

export function localHost(parts: LocalHostParts): Host {
  return {
    name: LOCAL_NODE,
    node: undefined,
    policy: parts.policy,
    tmux: parts.tmux,
    access: parts.access,
    reader: parts.reader,
    delivery: parts.delivery,
    runSignals: parts.runSignals,
    processTree: (panePid, currentCommand) => parts.processTree(panePid, currentCommand),
    transcripts: parts.transcripts,
    lifecycle: parts.lifecycle,
    qualify: (nameOrId) => nameOrId,
    named: (answer) => answer,
    connected: () => {},
    on: (run) => run(),
    outageOf: (err) => err,
  };
}

const NO_PROCESS_READS: PaneProcessFacts = { source: 'unreadable', reason: 'no process reads on this node' };

/** A node as a Host: its runtime (node-set.ts: its adapter over ssh, gate, reader, input
 * effects, transcripts) and its session effects, over the set's connection state. */
export function hostFor(nodes: NodeSet, runtime: NodeRuntime, lifecycle: HostLifecycle | undefined): Host {
  const node = runtime.config.name;
  return {
    name: node,
    node,
    policy: runtime.policy,
    tmux: runtime.tmux,
    access: runtime.access,
    reader: runtime.reader,
    delivery: runtime.input?.delivery,
    runSignals: runtime.input?.run,
    processTree: (panePid, currentCommand) => runtime.input?.processTree(panePid, currentCommand) ?? Promise.resolve(NO_PROCESS_READS),
    transcripts: runtime.transcripts,
    lifecycle,
    qualify: (nameOrId) => qualify(node, nameOrId),
    named: (answer) => ({ ...answer, session: qualify(node, answer.session), session_id: qualify(node, answer.session_id) }),
    connected: () => void nodes.connected(node),
    on: (run) => nodes.on(node, () => run()),
    outageOf: (err) => nodes.unavailableOr(node, err),
  };
}

export function createHostSet(local: Host, nodes: NodeSet | undefined, lifecycleOf: (node: string) => HostLifecycle | undefined = () => undefined): HostSet {
  const hosts = new Map<string, Host>();
  for (const name of nodes?.names() ?? []) {
    const runtime = nodes?.get(name);
    if (nodes !== undefined && runtime !== undefined) hosts.set(name, hostFor(nodes, runtime, lifecycleOf(name)));
  }
  const configured = () => nodes?.names() ?? [];
  const notConfigured = (node: string) => new AppError('NODE_UNAVAILABLE', `node ${node} is not configured in this broker`);
  const set: HostSet = {
    local,
    nodeNames: configured,
    node: (name) => hosts.get(name),
    of: (node) => (node === undefined ? local : hosts.get(node)),
    resolve(ref, orphans = 'refuse') {
      if (ref.binding !== undefined) {
        const node = nodes?.bindingNode(ref.binding);
        if (node === undefined) return { host: local, ref };
        const host = hosts.get(node);
        if (host !== undefined) return { host, ref };
        if (orphans === 'local') return { host: local, ref };
        throw notConfigured(node);
      }
      if (!ref.session.includes(':')) return { host: local, ref };
      const { node, session } = splitNodeName(ref.session, configured());
      const host = node === undefined ? local : hosts.get(node);
      // A configured node always has a host (built above from the same set).
      if (host === undefined) throw notConfigured(node ?? '');
      return { host, ref: { session, pane: ref.pane } };
    },
    resolveSession(qualified) {
      const { host, ref } = set.resolve({ session: qualified });
      return { host, ref: (ref as { session: string }).session };
    },
    onNode(ref) {
      if (ref.binding !== undefined) return nodes?.bindingNode(ref.binding) !== undefined;
      return set.resolve(ref).host.node !== undefined;
    },
    async read(qualified, read) {
      const { host, ref } = set.resolveSession(qualified);
      return host.named(await host.on(() => read(host, ref)));
    },
  };
  return set;
}
