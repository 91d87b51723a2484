/** What the session lifecycle use cases (start, close, restart, resize, recovery, forget) use:
 * the input slice (the prompt goes through the input attempt, input/send.ts; the node set
 * for sessions on nodes), the tmux session effects of this host and of each node, the
 * lifecycle records and the sessions in registry.db and the supervisor's event log. */
import type { Caller } from '../access/caller.js';
import type { NodeConfig } from '../config/nodes-schema.js';
import type { NodeLifecycleEffects } from '../effects/ssh/node-lifecycle.js';
import type { LifecycleStore } from '../effects/store/lifecycle-store.js';
import type { SessionRegistryStore } from '../effects/store/registry-store.js';
import type { SupervisorStore } from '../effects/store/supervisor-store.js';
import { createSessionLifecycleTmux, type SessionLifecycleTmux } from '../effects/tmux/session-lifecycle.js';
import type { InputDeps } from '../input/input-deps.js';
import type { HostSet } from '../nodes/host-set.js';
import type { NodeSet } from '../nodes/node-set.js';

export type { NodeLifecycleEffects };

export interface LifecycleServices {
  tmux: SessionLifecycleTmux;
  /** Each node's session effects and directory reads (effects/ssh/node-lifecycle.ts);
   * absent: profiles with a node answer NODE_UNAVAILABLE. */
  nodes?: ReadonlyMap<string, NodeLifecycleEffects> | undefined;
  store: LifecycleStore;
  /** registry.db's sessions: terminal_session_forget tombstones a gone one. */
  registry: Pick<SessionRegistryStore, 'list' | 'tombstone'>;
  /** Where recovery's deaths, restarts and crash loops are told (supervisor events). */
  events: Pick<SupervisorStore, 'addEvent'>;
  /** Called after every start (recovery looks for a program that died at once, possibly
   * before its row was written); set while recovery runs. */
  afterStart?: (() => void) | undefined;
}

export interface LifecycleDeps extends InputDeps {
  lifecycle: LifecycleServices;
  /** Where a session is and that host's parts (nodes/host-set.ts). */
  hosts: HostSet;
  /** The nodes' runtimes, for recovery's watch of each node's sessions (recovery.ts);
   * absent: no nodes. (Input reaches nodes through `hosts` alone.) */
  nodes?: NodeSet | undefined;
}

export type LifecycleCaller = Caller & { deps: LifecycleDeps };

export function createLifecycleServices(deps: {
  tmuxSocket: string | null;
  stores: { lifecycle: LifecycleStore; registry: Pick<SessionRegistryStore, 'list' | 'tombstone'>; supervisor: Pick<SupervisorStore, 'addEvent'> };
  /** The configured nodes and the builder of their lifecycle effects (the composition root's). */
  nodes?: readonly NodeConfig[];
  nodeLifecycleFor?: ((node: NodeConfig) => NodeLifecycleEffects) | undefined;
}): LifecycleServices {
  const build = deps.nodeLifecycleFor;
  return {
    tmux: createSessionLifecycleTmux({ socketName: deps.tmuxSocket ?? undefined }),
    nodes: build === undefined ? undefined : new Map((deps.nodes ?? []).map((n) => [n.name, build(n)])),
    store: deps.stores.lifecycle,
    registry: deps.stores.registry,
    events: deps.stores.supervisor,
  };
}
