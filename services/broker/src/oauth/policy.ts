/**
 * OAuth decisions that need no I/O: which redirect URIs a client may register, which
 * scope it gets, whether a PKCE verifier matches its challenge. Unit-tested on tables of
 * cases (policy.test.ts).
 */
import { createHash } from 'node:crypto';
import { CODE_VERIFIER_PATTERN, OAUTH_SCOPES_BY_SERVER, type OAuthServer } from '@terminal-mcp/contract';
import { gatewayOAuthSchema, observerOAuthSchema, type BrokerConfig } from '../config/schema.js';
import { redirectUriAllowed as redirectAllowedByRules } from '../policy/oauth-redirects.js';

/** One authorization server's settings: its config block with every default filled in,
 * which server it is, and the scopes it may grant. */
export interface OAuthSettings {
  server: OAuthServer;
  scopes: readonly string[];
  redirect_uri_allowlist: readonly string[];
  allow_loopback_redirect_uris: boolean;
  allow_chatgpt_connector_redirects: boolean;
  authorization_code_ttl_seconds: number;
  access_token_ttl_seconds: number;
  refresh_token_ttl_seconds: number;
}

function settingsOf(server: OAuthServer, block: object | undefined): OAuthSettings {
  const parsed =
    server === 'gateway'
      ? gatewayOAuthSchema.parse(block ?? {})
      : { ...observerOAuthSchema.parse(block ?? {}), allow_chatgpt_connector_redirects: false };
  return { ...parsed, server, scopes: OAUTH_SCOPES_BY_SERVER[server] };
}

/** The `observer.oauth` or `gateway.oauth` block with every default filled in (parsed
 * each call: the composition root builds each server's OAuthEnv, and so this, once). */
export function oauthSettings(config: BrokerConfig, server: OAuthServer = 'observer'): OAuthSettings {
  return settingsOf(server, server === 'gateway' ? config.gateway?.oauth : config.observer.oauth);
}

/**
 * A redirect URI a client may register at this server: one of the configured URIs,
 * (when allowed) an http URI on a loopback host with any port (RFC 8252 section 7.3), and
 * on the gateway ChatGPT's per-connector callbacks. See policy/oauth-redirects.ts.
 */
export function redirectUriAllowed(uri: string, settings: Pick<OAuthSettings, 'redirect_uri_allowlist' | 'allow_loopback_redirect_uris' | 'allow_chatgpt_connector_redirects'>): boolean {
  return redirectAllowedByRules(uri, {
    exact: settings.redirect_uri_allowlist,
    loopback: settings.allow_loopback_redirect_uris,
    chatgptConnector: settings.allow_chatgpt_connector_redirects,
  });
}

/** The scope a grant gets: what was asked for, intersected with what this server grants;
 * nothing asked (or nothing known asked) means all of this server's scopes (the consent
 * page shows them and the operator may leave the optional ones out). Unknown scopes are
 * dropped (RFC 6749 3.3 lets the server grant less than asked). The first scope of a
 * server (reading) is always part of a grant: every other one builds on it. */
export function grantedScope(requested: string | undefined, scopes: readonly string[] = OAUTH_SCOPES_BY_SERVER.observer): string {
  const known = (requested ?? '').split(' ').filter((s) => scopes.includes(s));
  if (known.length === 0) return scopes.join(' ');
  return scopes.filter((s) => s === scopes[0] || known.includes(s)).join(' ');
}

/** Whether every scope of a grant belongs to this server (audience by scope). */
export function scopeOfServer(granted: string, scopes: readonly string[]): boolean {
  const have = granted.split(' ').filter(Boolean);
  return have.length > 0 && have.every((s) => scopes.includes(s));
}

/** Whether a refresh may ask for `requested`: only a subset of what was granted. */
export function scopeWithin(requested: string, granted: string): boolean {
  const have = new Set(granted.split(' '));
  return requested.split(' ').filter(Boolean).every((s) => have.has(s));
}

/** RFC 7636 S256: BASE64URL(SHA256(ASCII(verifier))) === challenge. `plain` does not exist here. */
export function pkceS256Matches(verifier: string, challenge: string): boolean {
  if (!CODE_VERIFIER_PATTERN.test(verifier)) return false;
  return createHash('sha256').update(verifier, 'ascii').digest('base64url') === challenge;
}

/** A client name safe to store and show: control characters removed, whitespace
 * collapsed, capped. The consent page escapes it again; this keeps logs and the CLI tidy. */
export function cleanClientName(name: string | undefined, maxChars: number): string {
  const flat = (name ?? '').replace(/[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069]/g, ' ').replace(/\s+/g, ' ').trim();
  const cut = [...flat].slice(0, maxChars).join('');
  return cut || 'unnamed client';
}
