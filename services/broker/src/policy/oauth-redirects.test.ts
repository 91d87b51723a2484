// Guards the OAuth redirect allowlist: ChatGPT's two callback forms, claude.ai's exact callbacks and loopback pass; look-alike hosts, other paths, extra segments, user info, encoded slashes and parser-normalised spellings do not.
import { describe, expect, it } from 'vitest';
import { redirectUriAllowed, type RedirectRules } from './oauth-redirects.js';

const GATEWAY: RedirectRules = { exact: ['https://chatgpt.com/connector_platform_oauth_redirect'], loopback: true, chatgptConnector: true };
const OBSERVER: RedirectRules = { exact: ['https://claude.ai/api/mcp/auth_callback', 'https://claude.com/api/mcp/auth_callback'], loopback: true, chatgptConnector: false };

describe('the gateway rules (ChatGPT)', () => {
  it.each([
    ['https://chatgpt.com/connector_platform_oauth_redirect', true],
    ['https://chatgpt.com/connector/oauth/abc123', true],
    ['https://chatgpt.com/connector/oauth/Zx-9_q', true],
    ['http://127.0.0.1:53682/callback', true],
    ['http://localhost:3000/cb', true],
    ['http://[::1]:9/cb', true],
    // Look-alike and foreign hosts.
    ['https://chatgpt.com.evil.example/connector/oauth/x', false],
    ['https://evil.example/connector/oauth/x', false],
    ['https://evil.chatgpt.com/connector/oauth/x', false],
    ['https://chatgpt.co/connector/oauth/x', false],
    ['https://CHATGPT.com/connector/oauth/x', false],
    ['https://chatgpt.com:443/connector/oauth/x', false],
    ['https://chatgpt.com:8443/connector/oauth/x', false],
    ['http://chatgpt.com/connector/oauth/x', false],
    // Other paths on chatgpt.com, extra or missing segments.
    ['https://chatgpt.com/', false],
    ['https://chatgpt.com/connector/oauth/', false],
    ['https://chatgpt.com/connector/oauth', false],
    ['https://chatgpt.com/connector/oauth/x/y', false],
    ['https://chatgpt.com/connector/oauth/x/', false],
    ['https://chatgpt.com/connector/other/x', false],
    ['https://chatgpt.com/backend-api/x', false],
    ['https://chatgpt.com/connector_platform_oauth_redirect/x', false],
    ['https://chatgpt.com/connector_platform_oauth_redirect?next=https://evil.example', false],
    ['https://chatgpt.com/connector/oauth/x?next=https://evil.example', false],
    ['https://chatgpt.com/connector/oauth/x#frag', false],
    // User info, encoded slashes and dots, spellings a parser normalises.
    ['https://chatgpt.com@evil.example/connector/oauth/x', false],
    ['https://evil.example@chatgpt.com/connector/oauth/x', false],
    ['https://user:pass@chatgpt.com/connector/oauth/x', false],
    ['https://chatgpt.com/connector/oauth/x%2F..%2F..%2Fevil', false],
    ['https://chatgpt.com/connector/oauth/%2e%2e', false],
    ['https://chatgpt.com/connector/oauth/../../evil', false],
    ['https://chatgpt.com/connector/oauth/./x', false],
    ['https://chatgpt.com\\connector\\oauth\\x', false],
    ['https://chatgpt.com/connector/oauth/x\t', false],
    ['https://chatgpt.com./connector/oauth/x', false],
    ['https://chatgpt.com//connector/oauth/x', false],
    ['https://xn--chatgpt-xyz.com/connector/oauth/x', false],
    // Loopback tricks.
    ['http://127.0.0.1.evil.example/cb', false],
    ['http://127.0.0.1:8080@evil.example/cb', false],
    ['https://127.0.0.1:8080/cb', false],
    ['http://127.0.0.1:8080/cb#x', false],
    ['javascript:alert(1)', false],
    ['', false],
  ])('%s -> %s', (uri, allowed) => {
    expect(redirectUriAllowed(uri, GATEWAY)).toBe(allowed);
  });

  it('turns the per-connector form and loopback off when configured', () => {
    expect(redirectUriAllowed('https://chatgpt.com/connector/oauth/abc', { ...GATEWAY, chatgptConnector: false })).toBe(false);
    expect(redirectUriAllowed('http://127.0.0.1:1/cb', { ...GATEWAY, loopback: false })).toBe(false);
    expect(redirectUriAllowed('https://chatgpt.com/connector_platform_oauth_redirect', { ...GATEWAY, chatgptConnector: false, loopback: false })).toBe(true);
  });
});

describe('the observer rules (claude.ai)', () => {
  it.each([
    ['https://claude.ai/api/mcp/auth_callback', true],
    ['https://claude.com/api/mcp/auth_callback', true],
    ['http://127.0.0.1:9/callback', true],
    ['https://claude.ai/api/mcp/auth_callback/../x', false],
    ['https://claude.ai/api/mcp/auth_callback/', false],
    // ChatGPT's callbacks belong to the gateway only.
    ['https://chatgpt.com/connector/oauth/abc', false],
    ['https://chatgpt.com/connector_platform_oauth_redirect', false],
  ])('%s -> %s', (uri, allowed) => {
    expect(redirectUriAllowed(uri, OBSERVER)).toBe(allowed);
  });
});
