/**
 * Everything a procedure may use, assembled once at start-up (or by a test) from the
 * long-lived parts: the input services (stores, read-audit batcher, delivery, HMAC key),
 * THE access gate and THE session reader built over it. Nothing is created lazily
 * elsewhere: a procedure finds what it needs here.
 */
import type { Logger } from 'pino';
import { createAccessGate, type AccessGate } from '../access/gate.js';
import type { BrokerConfig } from '../config/schema.js';
import { grantsStore } from '../effects/store/grants-store.js';
import type { StoreSet } from '../effects/store/store-set.js';
import type { TranscriptRecorder } from '../effects/transcripts/recorder.js';
import type { TmuxAdapter } from '../effects/tmux/types.js';
import { createInputServices, type InputServices } from '../input/services.js';
import type { LiveDeps } from '../live/live-deps.js';
import { createSessionReader, type SessionReader } from '../reads/session-reader.js';
import type { SupervisorEngine } from '../supervisor/engine.js';

/** What the composition root builds first and hands in. */
export interface BrokerParts {
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
  /** Session transcripts (effects/transcripts/recorder.ts); absent: no cursors, no DEAD reads. */
  transcripts?: TranscriptRecorder;
}

export interface BrokerDeps extends BrokerParts {
  input: InputServices;
  /** The one answer to "may this caller read, or type into, this session?". */
  access: AccessGate;
  /** The one reader of pane content, over `access`. */
  reader: SessionReader;
}

/** Builds the gate and the reader over `parts`; `input` is shared when given (the same
 * stores must not get a second read-audit batcher). */
export function assembleDeps(parts: BrokerParts, input?: InputServices): BrokerDeps {
  const services = input ?? createInputServices({ stores: parts.stores, log: parts.log, tmuxSocket: parts.info.tmuxSocket });
  const grants = grantsStore(parts.stores.db('grants'));
  const access = createAccessGate({
    config: parts.config,
    tmux: parts.tmux,
    grants: (name) => grants.find(name),
    bindings: services.bindings,
    delivery: services.delivery,
  });
  return { ...parts, input: services, access, reader: createSessionReader({ config: parts.config, tmux: parts.tmux, access }) };
}

/** The same broker under another config (tests that change the config between calls). */
export function withConfig(deps: BrokerDeps, config: BrokerConfig): BrokerDeps {
  const { input, access: _access, reader: _reader, ...parts } = deps;
  return assembleDeps({ ...parts, config }, input);
}
