/** Everything a procedure may use, built once at start-up (or by a test). */
import type { Logger } from 'pino';
import type { BrokerConfig } from './config/schema.js';
import type { TmuxAdapter } from './effects/tmux/types.js';
import type { StoreSet } from './effects/store/store-set.js';
import type { LiveDeps } from './live/live-deps.js';
import type { SupervisorEngine } from './supervisor/engine.js';

export interface BrokerDeps {
  config: BrokerConfig;
  tmux: TmuxAdapter;
  stores: StoreSet;
  log: Logger;
  info: { version: string; startedAt: Date; tmuxSocket: string | null };
  /** Live pane output watchers and pending waits' resume tokens (live/live-deps.ts).
   * Optional so tests that do not need them can leave them out: `live.*` and `wait.*`
   * then answer TMUX_UNAVAILABLE. */
  live?: LiveDeps;
  /** The supervisor (supervisor/engine.ts), started by start-broker.ts. Optional: without
   * it, procedures get a passive engine that evaluates only on request. */
  supervisor?: SupervisorEngine;
}
