/**
 * OAuth decisions that need no I/O: which redirect URIs a client may register, which
 * scope it gets, whether a PKCE verifier matches its challenge. Unit-tested on tables of
 * cases (policy.test.ts).
 */
import { createHash } from 'node:crypto';
import { CODE_VERIFIER_PATTERN, OAUTH_SCOPES, OBSERVER_SCOPE } from '@terminal-mcp/contract';
import { observerOAuthSchema, type BrokerConfig } from '../config/schema.js';

export type OAuthSettings = ReturnType<typeof observerOAuthSchema.parse>;

const settingsCache = new WeakMap<object, OAuthSettings>();

/** The `observer.oauth` block with every default filled in. */
export function oauthSettings(config: BrokerConfig): OAuthSettings {
  const block = config.observer.oauth;
  if (block === undefined) return observerOAuthSchema.parse({});
  let s = settingsCache.get(block);
  if (!s) {
    s = observerOAuthSchema.parse(block);
    settingsCache.set(block, s);
  }
  return s;
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

/**
 * A redirect URI a client may register: exactly one of the configured URIs, or (when
 * allowed) an http URI on a loopback host with any port (RFC 8252 section 7.3). Never a
 * fragment, user info or a non-http(s) scheme. Matching later is by exact string.
 */
export function redirectUriAllowed(uri: string, settings: Pick<OAuthSettings, 'redirect_uri_allowlist' | 'allow_loopback_redirect_uris'>): boolean {
  if (settings.redirect_uri_allowlist.includes(uri)) return true;
  if (!settings.allow_loopback_redirect_uris) return false;
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return false;
  }
  if (url.protocol !== 'http:' || !LOOPBACK_HOSTS.has(url.hostname)) return false;
  if (url.username || url.password || uri.includes('#')) return false;
  // The text must be what the parser saw (no tricks like backslashes or tabs that URL
  // parsing silently normalises): compare with its serialisation.
  return url.href === uri || `${url.href}` === `${uri}/`;
}

/** The scope a grant gets: what was asked for, intersected with what exists; nothing
 * asked (or nothing known asked) means the default scope. Unknown scopes are dropped
 * (RFC 6749 3.3 lets the server grant less than asked). */
export function grantedScope(requested: string | undefined): string {
  const known = (requested ?? '')
    .split(' ')
    .filter((s) => (OAUTH_SCOPES as readonly string[]).includes(s));
  return known.length > 0 ? [...new Set(known)].join(' ') : OBSERVER_SCOPE;
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
