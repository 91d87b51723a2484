// Guards the OAuth edges' building blocks: consent-page escaping, CSP and scope choice, single-use browser-bound form tokens, strict public-URL and registration parsing, client credentials, duplicate-parameter refusal and the registration rate window.
import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { readClientCredentials } from './client-auth.js';
import { escapeHtml, pageSecurityHeaders, renderConsentPage } from './consent-page.js';
import { readParams } from './form.js';
import { clientAddress, readPublicUrl as readPublicUrlFor } from './public-url.js';
import { approvedScope, requestedScopes, type OAuthResourceProfile } from './profile.js';
import { PendingAuthorizations, readCookie, type PendingAuthorization } from './pending-authorizations.js';
import { parseRegistration } from './register.js';
import { redirectTarget } from './authorize.js';
import { KeyedRateWindows, RateWindow } from './rate-window.js';

class TestConfigError extends Error {}
const readPublicUrl = (raw: string) => readPublicUrlFor(raw, 'TEST_PUBLIC_URL', (m) => new TestConfigError(m));

const PROFILE: OAuthResourceProfile = {
  resourceName: 'test',
  consentAsk: 'use your terminals',
  consentLimits: 'Nothing else.',
  scopes: [
    { name: 'terminal:read', label: 'Read', detail: 'read sessions' },
    { name: 'terminal:input', label: 'Type', detail: 'type into sessions' },
  ],
};

const REQUEST: PendingAuthorization = {
  clientId: 'c1',
  clientName: 'Claude',
  redirectUri: 'https://claude.ai/api/mcp/auth_callback',
  codeChallenge: 'x'.repeat(43),
  resource: 'https://o.example.com/mcp',
  scopes: ['terminal:read'],
  state: 's',
};

describe('consent page', () => {
  it('escapes the client name and everything else interpolated', () => {
    const html = renderConsentPage({ profile: PROFILE, scopes: ['terminal:read'], clientName: '<script>alert(1)</script>"\'`', redirectUri: REQUEST.redirectUri, formToken: 'a"b', username: '"><img src=x>' });
    expect(html).not.toContain('<script>alert');
    expect(html).not.toContain('<img');
    expect(html).toContain('&#60;script&#62;');
    expect(html).toContain('value="a&#34;b"');
    expect(html).not.toMatch(/<script/i);
    expect(escapeHtml('&<>"\'`')).toBe('&#38;&#60;&#62;&#34;&#39;&#96;');
  });

  it('forbids framing and scripts, and lets the form go only to us and the redirect origin', () => {
    const csp = pageSecurityHeaders('https://claude.ai/api/mcp/auth_callback')['Content-Security-Policy']!;
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("form-action 'self' https://claude.ai;");
    expect(csp).not.toContain('script-src');
    expect(pageSecurityHeaders('http://127.0.0.1:4312/cb')['Content-Security-Policy']).toContain("form-action 'self' http://127.0.0.1:4312;");
  });

  it('adds code, state and iss to a redirect URI without losing its own query', () => {
    expect(redirectTarget('http://127.0.0.1:1/cb?x=1', { code: 'c', state: 'a b&c', iss: 'https://o.example.com', skipped: undefined })).toBe(
      'http://127.0.0.1:1/cb?x=1&code=c&state=a+b%26c&iss=https%3A%2F%2Fo.example.com',
    );
  });
});

describe('pending authorizations', () => {
  it('gives each page a single-use token bound to the browser that loaded it', () => {
    const pending = new PendingAuthorizations();
    const nonce = PendingAuthorizations.browserNonce(undefined);
    expect(PendingAuthorizations.browserNonce(nonce)).toBe(nonce);
    expect(PendingAuthorizations.browserNonce('short')).not.toBe('short');
    const token = pending.open(REQUEST, nonce);
    expect(pending.take(token, PendingAuthorizations.browserNonce(undefined))).toBeUndefined(); // another browser
    const token2 = pending.open(REQUEST, nonce);
    expect(pending.take(token2, undefined)).toBeUndefined(); // no cookie
    const token3 = pending.open(REQUEST, nonce);
    expect(pending.take(token3, nonce)).toEqual(REQUEST);
    expect(pending.take(token3, nonce)).toBeUndefined(); // used
    expect(pending.take('nonsense', nonce)).toBeUndefined();
  });

  it('expires pages and caps how many wait', () => {
    let now = 0;
    const pending = new PendingAuthorizations({ ttlMs: 1000, max: 3, now: () => now });
    const nonce = PendingAuthorizations.browserNonce(undefined);
    const first = pending.open(REQUEST, nonce);
    now = 1000;
    expect(pending.take(first, nonce)).toBeUndefined();
    const tokens = [1, 2, 3, 4].map(() => pending.open(REQUEST, nonce));
    expect(pending.size).toBe(3);
    expect(pending.take(tokens[0], nonce)).toBeUndefined(); // evicted, oldest first
    expect(pending.take(tokens[3], nonce)).toEqual(REQUEST);
  });

  it('reads one cookie out of a header', () => {
    expect(readCookie('a=1; tmcp_authz=xyz; b=2', 'tmcp_authz')).toBe('xyz');
    expect(readCookie('xtmcp_authz=1', 'tmcp_authz')).toBeUndefined();
  });
});

describe('settings and request parsing', () => {
  it.each([
    ['https://observer.example.com', 'https://observer.example.com'],
    ['https://observer.example.com/', 'https://observer.example.com'],
    ['https://Observer.Example.com:8443', 'https://observer.example.com:8443'],
    ['http://127.0.0.1:8767', 'http://127.0.0.1:8767'],
  ])('accepts the public URL %s', (raw, origin) => {
    expect(readPublicUrl(raw)).toBe(origin);
  });

  it.each(['http://observer.example.com', 'https://observer.example.com/mcp', 'https://u:p@observer.example.com', 'https://o.example.com/?x', 'ftp://o.example.com', 'nonsense'])(
    'refuses the public URL %s',
    (raw) => {
      expect(() => readPublicUrl(raw)).toThrow(TestConfigError);
    },
  );

  it('keys throttling on the configured header only when it holds an IP address', () => {
    expect(clientAddress('::ffff:127.0.0.1', undefined)).toBe('127.0.0.1');
    expect(clientAddress('127.0.0.1', '203.0.113.9')).toBe('203.0.113.9');
    // A list: only the right-most entry was written by our tunnel; the client chose the rest.
    expect(clientAddress('127.0.0.1', '198.51.100.77, 203.0.113.9')).toBe('203.0.113.9');
    expect(clientAddress('127.0.0.1', 'evil; drop')).toBe('127.0.0.1');
  });

  it('refuses a parameter sent twice', () => {
    expect(readParams(new URLSearchParams('a=1&b=2&a=3'))).toEqual({ ok: false, duplicate: 'a' });
    const ok = readParams(new URLSearchParams('a=1&b='));
    expect(ok.ok && ok.get('a')).toBe('1');
    expect(ok.ok && ok.get('b')).toBeUndefined();
  });

  it('maps RFC 7591 metadata and refuses malformed shapes', () => {
    expect(parseRegistration({ redirect_uris: ['https://claude.ai/api/mcp/auth_callback'], client_name: 'Claude', token_endpoint_auth_method: 'none', extra: 1 })).toEqual({
      ok: true,
      input: { redirectUris: ['https://claude.ai/api/mcp/auth_callback'], clientName: 'Claude', tokenEndpointAuthMethod: 'none' },
    });
    expect(parseRegistration({ redirect_uris: ['x'] })).toMatchObject({ ok: true, input: { tokenEndpointAuthMethod: 'client_secret_basic' } });
    expect(parseRegistration({})).toMatchObject({ ok: false, error: 'invalid_redirect_uri' });
    expect(parseRegistration({ redirect_uris: ['x'], token_endpoint_auth_method: 'private_key_jwt' })).toMatchObject({ ok: false, error: 'invalid_client_metadata' });
    expect(parseRegistration([])).toMatchObject({ ok: false });
  });

  it('reads client credentials from Basic or the body, never both', () => {
    const req = (authorization?: string) => ({ headers: authorization ? { authorization } : {} }) as IncomingMessage;
    const body = (o: Record<string, string>) => ({ get: (k: string) => o[k] });
    const basic = `Basic ${Buffer.from('my%20id:s%3Acret').toString('base64')}`;
    expect(readClientCredentials(req(basic), body({}))).toEqual({ ok: true, clientId: 'my id', clientSecret: 's:cret', via: 'basic' });
    expect(readClientCredentials(req(basic), body({ client_secret: 'x' }))).toMatchObject({ ok: false, error: 'invalid_request' });
    expect(readClientCredentials(req(basic), body({ client_id: 'other' }))).toMatchObject({ ok: false, error: 'invalid_request' });
    expect(readClientCredentials(req(), body({ client_id: 'c' }))).toEqual({ ok: true, clientId: 'c', clientSecret: undefined, via: 'body' });
    expect(readClientCredentials(req(), body({}))).toMatchObject({ ok: false, error: 'invalid_client' });
    expect(readClientCredentials(req('Bearer x'), body({ client_id: 'c' }))).toMatchObject({ ok: false, error: 'invalid_client' });
  });
});

describe('registration rate window', () => {
  it('allows the limit per window and says how long to wait after', () => {
    let now = 0;
    const w = new RateWindow(2, 60_000, () => now);
    expect([w.take(), w.take(), w.take()]).toEqual([0, 0, 60]);
    now = 59_500;
    expect(w.take()).toBe(1);
    now = 60_000;
    expect(w.take()).toBe(0);
  });
});

describe('scopes on the consent page', () => {
  it('asks for the known scopes named, all of them when none is, and reading always', () => {
    expect(requestedScopes(undefined, PROFILE)).toEqual(['terminal:read', 'terminal:input']);
    expect(requestedScopes('terminal:read', PROFILE)).toEqual(['terminal:read']);
    expect(requestedScopes('terminal:input', PROFILE)).toEqual(['terminal:read', 'terminal:input']);
    expect(requestedScopes('observer:read other', PROFILE)).toEqual(['terminal:read', 'terminal:input']);
  });

  it('shows an optional scope as an unticked box (least privilege) and approves it only when ticked', () => {
    const html = renderConsentPage({ profile: PROFILE, scopes: ['terminal:read', 'terminal:input'], clientName: 'ChatGPT', redirectUri: 'https://chatgpt.com/x', formToken: 't' });
    expect(html).toContain('name="grant.terminal:input" value="on">');
    expect(html).not.toMatch(/checked/);
    expect(html).not.toContain('name="grant.terminal:read"');
    const readOnly = renderConsentPage({ profile: PROFILE, scopes: ['terminal:read'], clientName: 'ChatGPT', redirectUri: 'https://chatgpt.com/x', formToken: 't' });
    expect(readOnly).not.toContain('terminal:input');
    const form = (o: Record<string, string>) => ({ get: (k: string) => o[k] });
    expect(approvedScope(['terminal:read', 'terminal:input'], form({ 'grant.terminal:input': 'on' }), PROFILE)).toBe('terminal:read terminal:input');
    expect(approvedScope(['terminal:read', 'terminal:input'], form({}), PROFILE)).toBe('terminal:read');
    // A box for a scope the request did not ask for adds nothing.
    expect(approvedScope(['terminal:read'], form({ 'grant.terminal:input': 'on' }), PROFILE)).toBe('terminal:read');
  });
});

describe('registration limits per source', () => {
  it('keeps one source\'s window from using up another\'s, and caps the table', () => {
    let now = 0;
    const w = new KeyedRateWindows(2, 60_000, 3, () => now);
    expect([w.take('a'), w.take('a'), w.take('a')]).toEqual([0, 0, 60]);
    expect(w.take('b')).toBe(0);
    expect(w.take('c')).toBe(0);
    // Full of live windows: a fourth source waits rather than growing the table.
    expect(w.take('d')).toBe(60);
    now = 60_000;
    expect([w.take('d'), w.take('a')]).toEqual([0, 0]);
  });
});
