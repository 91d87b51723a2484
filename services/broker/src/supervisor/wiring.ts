/** Builds the supervisor engine from what it needs (once, by the composition root). */
import type { SupervisorEvent } from '@terminal-mcp/contract';
import type { Logger } from 'pino';
import type { BrokerConfig } from '../config/schema.js';
import type { TmuxAdapter } from '../effects/tmux/types.js';
import type { SessionReader } from '../reads/session-reader.js';
import type { PaneWatcher } from '../effects/tmux/pane-watch.js';
import { createSupervisorEngine, type SupervisorEngine, type SupervisorEngineDeps } from './engine.js';
import { createVerifier } from './verify.js';
import type { StoresOf } from '../capabilities.js';

/** What the supervisor is built from: the config, tmux, the stores, the log, and THE
 * session reader (so every watch reads through the same gate as terminal_status). */
export interface SupervisorParts {
  config: BrokerConfig;
  tmux: TmuxAdapter;
  stores: StoresOf<'supervisor'>;
  log: Logger;
  reader: Pick<SessionReader, 'resolve' | 'follow'>;
  /** Watches this host's pane watcher cannot follow (another host's sessions), looked at on a tick. */
  remote?: SupervisorEngineDeps['remote'];
  /** Every event also goes here (the notices for a person, attention/center.ts). */
  onEvent?: (event: SupervisorEvent) => void;
  /** The guarded send a usage-limit resume types through, once the broker's deps exist. */
  limitSend?: SupervisorEngineDeps['limitSend'];
  /** The clock and the random delay source (tests); default Date.now and Math.random. */
  now?: SupervisorEngineDeps['now'];
  random?: SupervisorEngineDeps['random'];
}

export function createSupervisor(deps: SupervisorParts, paneWatch?: PaneWatcher): SupervisorEngine {
  const store = deps.stores.supervisor;
  const bindings = deps.stores.bindings;
  return createSupervisorEngine({
    store,
    reader: deps.reader,
    tmux: deps.tmux,
    bindings: (name) => bindings.get(name),
    config: deps.config.supervisor,
    log: deps.log,
    paneWatch,
    remote: deps.remote,
    limitSend: deps.limitSend,
    ...(deps.now !== undefined ? { now: deps.now } : {}),
    random: deps.random,
    verify: createVerifier(store, deps.config.supervisor.verifier_profiles, deps.config.permissions.terminal_input),
    // supervisor.notify.url is delivered by the notifier process (the broker queues each
    // event in onEvent: attention/notice-outbox.ts).
    notify: deps.onEvent,
  });
}
