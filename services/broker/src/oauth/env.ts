/** What the OAuth domain acts on: oauth.db, the operator accounts (for the login on the
 * consent page), the settings, a log and a clock. Built once per authorization server by
 * the broker's composition root (`deps.oauth`) and once by the admin CLI; tests pass
 * their own clock. */
import type { Logger } from 'pino';
import type { OAuthServer } from '@terminal-mcp/contract';
import type { BrokerConfig } from '../config/schema.js';
import type { OAuthStore } from '../effects/store/oauth-store.js';
import type { WebauthEnv } from '../webauth/env.js';
import { oauthSettings, type OAuthSettings } from './policy.js';

export interface OAuthEnv {
  store: OAuthStore;
  settings: OAuthSettings;
  log: Logger;
  /** Milliseconds since the epoch. */
  now: () => number;
}

/** The login page also needs the operator accounts. */
export interface OAuthLoginEnv extends OAuthEnv {
  webauth: WebauthEnv;
}

/** `server` is the authorization server acting (the socket's role): its redirect rules
 * and scopes apply. The store is shared; the admin CLI lists both servers' grants. */
export function oauthEnv(opts: { store: OAuthStore; config: BrokerConfig; log: Logger; now?: () => number; server?: OAuthServer }): OAuthEnv {
  return { store: opts.store, settings: oauthSettings(opts.config, opts.server), log: opts.log, now: opts.now ?? Date.now };
}
