// Guards: only requests naming us in Host (loopback name + our port, or a configured tunnel host) pass; MCP edges refuse a foreign Origin; dashboard mutations must carry our exact origin (DNS rebinding, cross-site and other-local-port requests).
import { describe, expect, it } from 'vitest';
import { createHostPolicy, isAllowedHost, isAllowedOrigin, isSameOriginMutation, ownOrigin, parseHostHeader, parsePublicHosts } from './host-origin.js';

const policy = createHostPolicy({
  port: 8766,
  bindHost: '127.0.0.1',
  publicHosts: parsePublicHosts(['mcp.example.com', 'pinned.example.net:8443']).hosts,
});

describe('isAllowedHost', () => {
  it.each([
    ['127.0.0.1:8766', true],
    ['localhost:8766', true],
    ['LOCALHOST:8766', true],
    ['[::1]:8766', true],
    ['mcp.example.com', true],
    ['mcp.example.com:443', true],
    ['MCP.Example.COM.', true],
    ['pinned.example.net:8443', true],
    ['pinned.example.net', false],
    ['pinned.example.net:443', false],
    // DNS rebinding: the attacker's name resolving to 127.0.0.1.
    ['evil.example:8766', false],
    ['evil.example', false],
    ['mcp.example.com.evil.example', false],
    // Another local port is another origin.
    ['127.0.0.1:9999', false],
    ['127.0.0.1:8767', false],
    ['localhost:9999', false],
    ['127.0.0.1', false],
    ['localhost', false],
    ['127.0.0.2:8766', false],
    ['0.0.0.0:8766', false],
    ['[::ffff:127.0.0.1]:8766', false],
    ['127.0.0.1:8766@evil.example', false],
    ['127.0.0.1:8766/x', false],
    ['127.0.0.1:08766x', false],
    ['', false],
    [undefined, false],
    // SvelteKit's Headers.get() answers null for a missing header.
    [null, false],
  ])('Host %j -> %s', (host, allowed) => {
    expect(isAllowedHost(host, policy)).toBe(allowed);
  });

  it('accepts the bind address when it is another loopback address', () => {
    const p = createHostPolicy({ port: 9000, bindHost: '127.0.0.5', publicHosts: [] });
    expect(isAllowedHost('127.0.0.5:9000', p)).toBe(true);
    expect(isAllowedHost('127.0.0.6:9000', p)).toBe(false);
  });

  it('reads a Host without a port as port 80, also for a tunnel host pinned to 443', () => {
    // The dashboard's copy used to accept a port-less Host for a host pinned to 80 or 443;
    // the MCP edges' stricter reading is the shared one: pin no port to accept any.
    const p = createHostPolicy({ port: 8768, bindHost: '127.0.0.1', publicHosts: parsePublicHosts(['dash.example.com:443', 'plain.example.com:80']).hosts });
    expect(isAllowedHost('dash.example.com:443', p)).toBe(true);
    expect(isAllowedHost('dash.example.com', p)).toBe(false);
    expect(isAllowedHost('plain.example.com', p)).toBe(true);
    expect(isAllowedHost('plain.example.com:443', p)).toBe(false);
  });
});

describe('isAllowedOrigin', () => {
  it.each([
    [undefined, true],
    ['http://127.0.0.1:8766', true],
    ['http://localhost:8766', true],
    ['http://[::1]:8766', true],
    ['https://mcp.example.com', true],
    ['https://pinned.example.net:8443', true],
    ['https://pinned.example.net', false],
    ['http://evil.example', false],
    ['https://evil.example', false],
    // Another local web app is another origin.
    ['http://127.0.0.1:9999', false],
    ['http://localhost:3000', false],
    ['http://127.0.0.1', false],
    ['null', false],
    ['', false],
    ['file://', false],
    ['ws://127.0.0.1:8766', false],
    ['chrome-extension://abcdef', false],
    ['http://127.0.0.1:8766/path', false],
    ['http://user@127.0.0.1:8766', false],
    ['http://127.0.0.1:8766, http://evil.example', false],
  ])('Origin %j -> %s', (origin, allowed) => {
    expect(isAllowedOrigin(origin, policy)).toBe(allowed);
  });
});

describe('same-origin rule for mutations', () => {
  const own = ownOrigin('http', '127.0.0.1:8768');
  it.each([
    [{ origin: 'http://127.0.0.1:8768' }, true],
    [{ origin: 'http://127.0.0.1:9999' }, false],
    [{ origin: 'https://127.0.0.1:8768' }, false],
    [{ origin: 'http://localhost:8768' }, false],
    [{ origin: 'null' }, false],
    [{ origin: null, referer: 'http://127.0.0.1:8768/sessions' }, true],
    [{ origin: null, referer: 'http://127.0.0.1:9999/attack' }, false],
    [{ origin: null, referer: null }, false],
    [{}, false],
  ])('%j -> %s', (headers, ok) => {
    expect(isSameOriginMutation(headers, own)).toBe(ok);
  });

  it('builds our origin from the scheme and the Host as named, lower case without a trailing dot', () => {
    expect(ownOrigin('https', ' Dash.Example.COM. ')).toBe('https://dash.example.com');
    expect(ownOrigin('http', '[::1]:8768')).toBe('http://[::1]:8768');
  });
});

describe('parsePublicHosts', () => {
  it('reads names, names with ports and URLs; reports garbage', () => {
    const { hosts, invalid } = parsePublicHosts(['a.example.com', ' b.example.com:8443 ', 'https://c.example.com/', '', 'not a host', 'x/y']);
    expect(hosts).toEqual([{ hostname: 'a.example.com' }, { hostname: 'b.example.com', port: 8443 }, { hostname: 'c.example.com' }]);
    expect(invalid).toEqual(['not a host', 'x/y']);
  });
});

describe('parseHostHeader', () => {
  it('splits names, IPv6 literals and ports', () => {
    expect(parseHostHeader('[::1]:80')).toEqual({ hostname: '[::1]', port: 80 });
    expect(parseHostHeader('Example.COM')).toEqual({ hostname: 'example.com', port: undefined });
    expect(parseHostHeader('a:99999')).toBeUndefined();
    expect(parseHostHeader('a b')).toBeUndefined();
  });
});
