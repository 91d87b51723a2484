/** Builds the supervisor engine from what it needs, and finds the broker's one engine. */
import type { BrokerDeps } from '../deps.js';
import { createWebhookNotifier } from '../effects/notify/webhook.js';
import { bindingStore } from '../effects/store/bindings-store.js';
import { supervisorStore } from '../effects/store/supervisor-store.js';
import type { PaneWatcher } from '../effects/tmux/pane-watch.js';
import { sessionReaderFor } from '../reads/session-reader.js';
import { createSupervisorEngine, type SupervisorEngine } from './engine.js';
import { createVerifier } from './verify.js';

export function createSupervisor(deps: Pick<BrokerDeps, 'config' | 'tmux' | 'stores' | 'log'>, paneWatch?: PaneWatcher): SupervisorEngine {
  const store = supervisorStore(deps.stores.db('supervisor'));
  const bindings = bindingStore(deps.stores.db('bindings'));
  const notify = deps.config.supervisor.notify;
  return createSupervisorEngine({
    store,
    reader: sessionReaderFor(deps),
    tmux: deps.tmux,
    bindings: (name) => bindings.get(name),
    config: deps.config.supervisor,
    log: deps.log,
    paneWatch,
    verify: createVerifier(store),
    notify: notify.url === undefined ? undefined : createWebhookNotifier({ url: notify.url, timeoutSeconds: notify.timeout_seconds, retries: notify.retries, log: deps.log }),
  });
}

const fallback = new WeakMap<object, SupervisorEngine>();

/** The broker's engine; a broker built without one (tests) gets a passive engine that
 * evaluates only on request (run_once, watch), never started. */
export function supervisorOf(deps: BrokerDeps): SupervisorEngine {
  if (deps.supervisor !== undefined) return deps.supervisor;
  let engine = fallback.get(deps);
  if (engine === undefined) {
    engine = createSupervisor(deps);
    fallback.set(deps, engine);
  }
  return engine;
}
