/**
 * The broker's nodes (config `nodes:`): for each, its tmux adapter over ssh, and THE access
 * gate and session reader over that adapter, built the same way as this host's, with the
 * node's own read patterns. A read of `node:session` goes to the node's reader: the same
 * exact-name resolution, capture fence, redaction and status rules. Identity is pinned per
 * node (each gate only ever sees its own server's pids and ids), and the ids a caller sees
 * carry the node (`gpu:$3`).
 *
 * Input to `node:session` goes through the same input attempt as here (input/node-route.ts)
 * with the node's gate (its read patterns and its input patterns, every other input rule
 * the top-level one), its delivery and its process tree read on the node
 * (effects/ssh/node-adapters.ts `nodeInputEffects`).
 *
 * Bindings on a node's panes (bindings.db rows with that node) are that node's gate's: it
 * sees only them, resolves them on the node's tmux and re-reads a pinned pane's identity
 * through the node's delivery. `bindingNode` says which host a binding is on, so every use
 * of a binding (bound reads, input, watches, listings) is routed there.
 *
 * The operator's grants on a node's sessions are grants.db rows under `node:session`,
 * pinned to the node's server pid and session (grants/change-grants.ts); each node's gate
 * sees only those under its own name (access/gate.ts `grantsOn`).
 *
 * Transcripts (when `transcripts.enabled`): each node has its own recorder (built by the
 * composition root: effects/transcripts/node-recorder.ts), which POLLS the readable
 * sessions' panes every 2 s through this node's reader (`recordingLook`: the node's gate,
 * then a capture over its control connection) instead of tmux's pipe-pane, into the node's
 * own store (`transcripts/nodes/<node>/`), and its own transcript reads (cursors that name
 * the node, read_since, DEAD reads, export) over that store.
 *
 * Each node's sessions have registry.db rows of their own (registry/session-registry.ts
 * `createNodeRegistries`, over this runtime's tmux, gate and reader): a node that is down
 * changes none of them.
 */
import { AppError, type ListedNode, type NodeHealth } from '@terminal-mcp/contract';
import { bindingsOn, createAccessGate, grantsOn, NO_PANE_IDENTITY, type AccessGate, type AccessGateDeps, type GrantLookup } from '../access/gate.js';
import type { NodeConfig } from '../config/nodes-schema.js';
import type { BrokerConfig } from '../config/schema.js';
import type { NodeInputEffects } from '../effects/ssh/node-adapters.js';
import { classifySshFailure, failureHint, type SshFailure } from '../effects/ssh/ssh-argv.js';
import type { ControlModeTmuxAdapter } from '../effects/tmux/adapter.js';
import type { ListedSession } from '../effects/tmux/types.js';
import type { CutMemo } from '../reads/cut-memo.js';
import { createSessionReader, type SessionReader } from '../reads/session-reader.js';
import { createTranscriptReads, type TranscriptReads, type TranscriptSource } from '../transcripts/transcript-reads.js';
import { beforeDeadline, LATE } from './deadline.js';
import { qualify } from './node-names.js';
import type { ReadAuditRecorder } from '../audit/read-audit.js';

export type { NodeInputEffects };

/** How long a health probe may take before it counts as failed. */
export const NODE_PROBE_TIMEOUT_MS = 5_000;

/** How long one node's session listing may take before a list answers without waiting for
 * it (the node is then `slow`, with its last listing): one stalled node must not hold up
 * every other node's answer. 5 s is ~200x the p50 of a 20-node listing measured here
 * (docs/architecture.md), so a busy machine's healthy node is never called slow. */
export const NODE_LIST_DEADLINE_MS = 5_000;

/** A node's sessions for a listing: fresh, or (slow) the last listing, if there was one. */
export interface NodeListing {
  live: ListedSession[];
  /** When tmux gave this listing (epoch ms); undefined: slow, and never listed before. */
  listedAt: number | undefined;
  slow: boolean;
}

export interface NodeRuntime {
  readonly config: NodeConfig;
  /** The broker's config as this node's gate applies it (the node's patterns). */
  readonly policy: BrokerConfig;
  readonly tmux: ControlModeTmuxAdapter;
  /** THE access gate for this node's sessions. */
  readonly access: AccessGate;
  readonly reader: SessionReader;
  /** Delivery and process reads on the node; absent: input to this node is refused. */
  readonly input: NodeInputEffects | undefined;
  /** Cursors, read_since, DEAD reads and export of this node's transcripts; absent: no
   * recorder was built (tests), reads go without cursors. */
  readonly transcripts: TranscriptReads | undefined;
}

/** A node's transcript recorder as the node set drives it. */
export type NodeRecorder = TranscriptSource & { start(): void; close(): Promise<void> };

/** What a node's recorder is built over: the node's gate and reader (its looks), tmux (its
 * listing), and the node's policy. */
export interface NodeRecorderParts {
  readonly policy: BrokerConfig;
  readonly tmux: ControlModeTmuxAdapter;
  readonly access: AccessGate;
  readonly reader: SessionReader;
}

export interface NodeSet {
  names(): string[];
  /** The node, or SESSION_NOT_FOUND-free undefined for an unconfigured name. */
  get(name: string): NodeRuntime | undefined;
  /** The node when it is connected, else NODE_UNAVAILABLE with a hint that says why. */
  connected(name: string): NodeRuntime;
  /** Turns a failure of a read on a node into NODE_UNAVAILABLE when the node went down under it. */
  unavailableOr(name: string, err: unknown): unknown;
  /** `run` on the node, which must be connected (`connected`); a failure because its link
   * went down meanwhile is NODE_UNAVAILABLE too (`unavailableOr`). */
  on<T>(name: string, run: (n: NodeRuntime) => Promise<T>): Promise<T>;
  /** The node a binding is pinned on; undefined for this host's bindings and unknown names. */
  bindingNode(binding: string): string | undefined;
  /** Up or down, for a listing. */
  listed(name: string): ListedNode;
  /** A connected node's sessions as its tmux lists them, or, when that takes longer than
   * NODE_LIST_DEADLINE_MS, its last listing marked slow (the late answer still becomes
   * the last listing). */
  sessionsOf(name: string): Promise<NodeListing>;
  /** Transport and execution state; runs a bounded probe through each connected node's tmux. */
  health(only?: string): Promise<NodeHealth[]>;
  close(): Promise<void>;
}

export interface NodeSetDeps {
  config: BrokerConfig;
  reads: Pick<ReadAuditRecorder, 'record'>;
  /** The broker's memo of cut pane windows (reads/cut-memo.ts), shared with this host's reader. */
  cuts: CutMemo;
  /** bindings.db (the broker's one store): each node's gate sees the rows pinned on it. */
  bindings?: AccessGateDeps['bindings'] | undefined;
  /** grants.db: each node's gate sees the grants stored under its `node:` names. */
  grants?: GrantLookup | undefined;
  /** Builds a node's adapter (the composition root's, over effects/ssh/ssh-transport.ts). */
  adapterFor(node: NodeConfig): ControlModeTmuxAdapter;
  /** Builds a node's input effects (the composition root's, effects/ssh/node-adapters.ts). */
  inputFor?: ((node: NodeConfig, tmux: ControlModeTmuxAdapter) => NodeInputEffects) | undefined;
  /** Builds a node's transcript recorder (the composition root's, over
   * effects/transcripts/node-recorder.ts); absent: no transcripts on nodes. */
  recorderFor?: ((node: NodeConfig, parts: NodeRecorderParts) => NodeRecorder) | undefined;
  now?: () => number;
}

/** Failures only the operator can fix: the node stays `failed` (it still retries). */
const NEEDS_OPERATOR: ReadonlySet<SshFailure> = new Set(['host_key_unknown', 'host_key_changed', 'auth_refused', 'remote_tmux_missing']);

const REASONS: Record<SshFailure, string> = {
  host_key_unknown: 'host key not known',
  host_key_changed: 'host key changed',
  auth_refused: 'authentication refused',
  connection_refused: 'connection refused',
  connect_timeout: 'connection timed out',
  unresolvable: 'host name not resolvable',
  connection_lost: 'connection lost',
  remote_tmux_not_running: 'no tmux server on the node',
  remote_tmux_missing: 'tmux not installed on the node',
  failed: 'ssh failed',
};

export function createNodeSet(deps: NodeSetDeps): NodeSet {
  const now = deps.now ?? Date.now;
  const lastSuccess = new Map<string, number>();
  /** Each node's last session listing, for a list that cannot wait for the node. */
  const lastListing = new Map<string, { live: ListedSession[]; at: number }>();
  const nodes = new Map<string, NodeRuntime>();
  const recorders: NodeRecorder[] = [];
  for (const node of deps.config.nodes) {
    const tmux = deps.adapterFor(node);
    // The node's own read and input patterns; everything else (the input switch, deny
    // patterns, sensitive names, guarded commands, redaction, limits) as here. Input
    // patterns fall back to the top-level ones, then (policy/input.ts) to the node's read
    // patterns.
    const config: BrokerConfig = {
      ...deps.config,
      allowed_session_patterns: node.allowed_session_patterns ?? deps.config.allowed_session_patterns,
      input_policy: { ...deps.config.input_policy, ...(node.input_session_patterns !== undefined && { allowed_session_patterns: node.input_session_patterns }) },
    };
    const input = deps.inputFor?.(node, tmux);
    const access = createAccessGate({
      config,
      tmux,
      // The operator's grants on this node's sessions (stored as node:session, pinned to the
      // node's server pid); without a grant store, none admits (fail closed).
      grants: deps.grants === undefined ? undefined : grantsOn(deps.grants, node.name),
      // The bindings pinned on this node, their pane's identity re-read on the node.
      bindings: bindingsOn(deps.bindings ?? { get: () => undefined }, node.name),
      delivery: input?.delivery ?? NO_PANE_IDENTITY,
    });
    // Its continued reads (waits, live frames) are audited under node:session like one-shot reads.
    const reads = {
      record: (r: Parameters<NodeSetDeps['reads']['record']>[0]) =>
        deps.reads.record({ ...r, sessionName: r.sessionName === null ? null : qualify(node.name, r.sessionName), sessionId: r.sessionId === null ? null : qualify(node.name, r.sessionId) }),
    };
    // Without input effects the node's panes are never typed into, so delivery reads none.
    const reader = createSessionReader({ config, tmux, access, reads, now, identity: input?.delivery ?? NO_PANE_IDENTITY, cuts: deps.cuts });
    const recorder = deps.recorderFor?.(node, { policy: config, tmux, access, reader });
    if (recorder !== undefined) recorders.push(recorder);
    const transcripts = recorder === undefined ? undefined : createTranscriptReads({ config, tmux, access, transcripts: recorder, node: node.name });
    recorder?.start();
    nodes.set(node.name, { config: node, policy: config, tmux, access, reader, input, transcripts });
  }

  /** Why the last attempt failed, or null before any failed (the first connect is under way).
   * Kept while a retry is in flight, so a node that needs the operator says so throughout. */
  const failureOf = (n: NodeRuntime): SshFailure | null => {
    const { lastError } = n.tmux.connectionFacts();
    return lastError === '' || lastError === 'not started' ? null : classifySshFailure(lastError);
  };

  const down = (n: NodeRuntime): AppError => {
    const failure = failureOf(n);
    return new AppError(
      'NODE_UNAVAILABLE',
      `node ${n.config.name} is ${failure === null ? 'still connecting' : `down: ${REASONS[failure]}`}`,
      failure === null ? `Node ${n.config.name} is connecting; call again in a few seconds.` : failureHint(n.config, failure),
    );
  };

  function transportOf(n: NodeRuntime): Pick<NodeHealth, 'transport' | 'reason' | 'hint' | 'next_retry_at'> {
    if (n.tmux.state === 'connected') return { transport: 'up' };
    const facts = n.tmux.connectionFacts();
    const failure = failureOf(n);
    if (failure === null) return { transport: 'connecting' };
    return {
      transport: NEEDS_OPERATOR.has(failure) ? 'failed' : n.tmux.state === 'connecting' ? 'connecting' : 'backing_off',
      reason: REASONS[failure],
      hint: failureHint(n.config, failure),
      ...(facts.nextRetryAt !== undefined && { next_retry_at: new Date(facts.nextRetryAt).toISOString() }),
    };
  }

  async function probe(name: string, n: NodeRuntime): Promise<NodeHealth> {
    const transport = transportOf(n);
    const known = lastSuccess.get(name);
    const base = { node: name, ...transport, ...(known !== undefined && { last_success: new Date(known).toISOString() }) };
    if (transport.transport !== 'up') return { ...base, execution: 'NOT_PROBED' };
    // A fresh connection alone is not health: a command must run through the node's tmux
    // and its answer come back, within the bound.
    const started = now();
    const result = await beforeDeadline(n.tmux.health(), NODE_PROBE_TIMEOUT_MS);
    if (result === LATE || !result.ok) return { ...base, execution: 'EXECUTION_FAILED', reason: 'the tmux probe did not answer' };
    const at = now();
    lastSuccess.set(name, at);
    const serverPid = n.tmux.connectionFacts().serverPid;
    return { ...base, execution: 'EXECUTION_OK', last_success: new Date(at).toISOString(), latency_ms: Math.max(0, Math.round(at - started)), ...(serverPid !== undefined && { server_pid: serverPid }) };
  }

  const get = (name: string) => nodes.get(name);
  const connected = (name: string): NodeRuntime => {
    const n = nodes.get(name);
    if (n === undefined) throw new AppError('SESSION_NOT_FOUND', 'no such node');
    if (n.tmux.state !== 'connected') throw down(n);
    return n;
  };
  const unavailableOr = (name: string, err: unknown): unknown => {
    const n = nodes.get(name);
    const code = (err as { code?: unknown }).code;
    if (n !== undefined && (code === 'TMUX_UNAVAILABLE' || (code === 'TIMEOUT' && n.tmux.state !== 'connected'))) return down(n);
    return err;
  };
  return {
    names: () => [...nodes.keys()],
    get,
    connected,
    bindingNode: (binding) => deps.bindings?.get(binding)?.node ?? undefined,
    unavailableOr,
    async on(name, run) {
      const n = connected(name);
      try {
        return await run(n);
      } catch (err) {
        throw unavailableOr(name, err);
      }
    },
    listed(name) {
      const n = nodes.get(name);
      if (n === undefined) return { node: name, state: 'down', reason: 'not configured' };
      if (n.tmux.state === 'connected') return { node: name, state: 'up' };
      const err = down(n);
      return { node: name, state: 'down', reason: err.message, ...(err.hint !== undefined && { hint: err.hint }) };
    },
    async sessionsOf(name) {
      const n = connected(name);
      const fresh = n.tmux.listSummaries().then((live) => {
        const listing = { live, at: now() };
        lastListing.set(name, listing);
        return listing;
      });
      const first = await beforeDeadline(fresh, NODE_LIST_DEADLINE_MS);
      if (first !== LATE) return { live: first.live, listedAt: first.at, slow: false };
      // Nobody waits for the late answer any more; its failure is the node's next state.
      const last = lastListing.get(name);
      return { live: last?.live ?? [], listedAt: last?.at, slow: true };
    },
    async health(only) {
      const names = only === undefined ? [...nodes.keys()] : [only];
      return Promise.all(
        names.map((name) => {
          const n = nodes.get(name);
          if (n === undefined) throw new AppError('NOT_FOUND', 'no such node', `Configured nodes: ${[...nodes.keys()].join(', ') || 'none'}.`);
          return probe(name, n);
        }),
      );
    },
    async close() {
      // Recorders first: their last lines are written while the links still stand.
      await Promise.all(recorders.map((r) => r.close()));
      // terminal_run helpers on the nodes end (their FIFO directories go with them).
      await Promise.all([...nodes.values()].map((n) => n.input?.run.close()));
      await Promise.all([...nodes.values()].map((n) => n.tmux.close()));
    },
  };
}
