/** What the session lifecycle use cases (start, close, restart, resize, recovery) use:
 * the input slice (the prompt goes through the input attempt, input/send.ts), the tmux
 * session effects, the lifecycle records in registry.db and the supervisor's event log. */
import type { Caller } from '../access/caller.js';
import type { LifecycleStore } from '../effects/store/lifecycle-store.js';
import type { SupervisorStore } from '../effects/store/supervisor-store.js';
import { createSessionLifecycleTmux, type SessionLifecycleTmux } from '../effects/tmux/session-lifecycle.js';
import type { InputDeps } from '../input/input-deps.js';

export interface LifecycleServices {
  tmux: SessionLifecycleTmux;
  store: LifecycleStore;
  /** Where recovery's deaths, restarts and crash loops are told (supervisor events). */
  events: Pick<SupervisorStore, 'addEvent'>;
  /** Called after every start (recovery looks for a program that died at once, possibly
   * before its row was written); set while recovery runs. */
  afterStart?: (() => void) | undefined;
}

export interface LifecycleDeps extends InputDeps {
  lifecycle: LifecycleServices;
}

export type LifecycleCaller = Caller & { deps: LifecycleDeps };

export function createLifecycleServices(deps: { tmuxSocket: string | null; stores: { lifecycle: LifecycleStore; supervisor: Pick<SupervisorStore, 'addEvent'> } }): LifecycleServices {
  return { tmux: createSessionLifecycleTmux({ socketName: deps.tmuxSocket ?? undefined }), store: deps.stores.lifecycle, events: deps.stores.supervisor };
}
