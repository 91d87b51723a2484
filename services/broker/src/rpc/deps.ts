/**
 * Everything a procedure may use, assembled once at start-up (or by a test) from the
 * long-lived parts: the input services (stores, read-audit batcher, delivery, HMAC key),
 * THE access gate and THE session reader built over it. Nothing is created lazily
 * elsewhere: a procedure finds what it needs here.
 */
import type { OAuthServer } from '@terminal-mcp/contract';
import type { Logger } from 'pino';
import { createAccessGate, type AccessGate } from '../access/gate.js';
import type { BrokerConfig } from '../config/schema.js';
import type { StoreSet } from '../effects/store/store-set.js';
import type { TmuxAdapter } from '../effects/tmux/types.js';
import { createInputServices, type InputServices } from '../input/services.js';
import type { LiveDeps } from '../live/live-deps.js';
import { oauthEnv, type OAuthLoginEnv } from '../oauth/env.js';
import { createSessionReader, type SessionReader } from '../reads/session-reader.js';
import type { SupervisorEngine } from '../supervisor/engine.js';
import { createSupervisor } from '../supervisor/wiring.js';
import { webauthEnv, type WebauthEnv } from '../webauth/env.js';

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
}

export interface BrokerDeps extends BrokerParts {
  input: InputServices;
  /** The one answer to "may this caller read, or type into, this session?". */
  access: AccessGate;
  /** The one reader of pane content, over `access`. */
  reader: SessionReader;
  /** The operator accounts, login sessions and bootstrap secret (webauth/env.ts). */
  webauth: WebauthEnv;
  /** Each authorization server's OAuth environment: its rules and scopes over the one
   * oauth.db, with the operator accounts for the consent page's login. */
  oauth: Readonly<Record<OAuthServer, OAuthLoginEnv>>;
  /** The supervisor (supervisor/engine.ts). start-broker.ts starts it; a broker built by a
   * test leaves it passive (it evaluates only on request: run_once, watch). */
  supervisor: SupervisorEngine;
}

/** Builds the gate and the reader over `parts`; `input` is shared when given (the same
 * stores must not get a second read-audit batcher). */
export function assembleDeps(parts: BrokerParts, input?: InputServices): BrokerDeps {
  const services = input ?? createInputServices({ stores: parts.stores, log: parts.log, tmuxSocket: parts.info.tmuxSocket });
  const grants = parts.stores.grants;
  const access = createAccessGate({
    config: parts.config,
    tmux: parts.tmux,
    grants: (name) => grants.find(name),
    bindings: services.bindings,
    delivery: services.delivery,
  });
  const reader = createSessionReader({ config: parts.config, tmux: parts.tmux, access });
  const webauth = webauthEnv({ store: parts.stores.webauth, stateDir: parts.stores.stateDir, log: parts.log });
  const oauthOf = (server: OAuthServer): OAuthLoginEnv => ({ ...oauthEnv({ store: parts.stores.oauth, config: parts.config, log: parts.log, server }), webauth });
  const supervisor = createSupervisor({ ...parts, reader }, parts.live?.paneWatch);
  return { ...parts, input: services, access, reader, webauth, oauth: { gateway: oauthOf('gateway'), observer: oauthOf('observer') }, supervisor };
}

/** The same broker under another config (tests that change the config between calls). */
export function withConfig(deps: BrokerDeps, config: BrokerConfig): BrokerDeps {
  const { input, access: _access, reader: _reader, webauth: _webauth, oauth: _oauth, supervisor: _supervisor, ...parts } = deps;
  return assembleDeps({ ...parts, config }, input);
}
