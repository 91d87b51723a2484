// The dashboard's request settings and forwarding trust: loopback-only binding, strict settings, and X-Forwarded-* believed only from the trusted proxy (Host and same-origin rules: shared/http-guard).
import { describe, expect, it } from 'vitest';
import { resolveRequestOrigin } from './forwarded.js';
import { webSettingsFromEnv } from './settings.js';

describe('webSettingsFromEnv', () => {
  it('defaults to 127.0.0.1:8768', () => {
    expect(webSettingsFromEnv({})).toMatchObject({ host: '127.0.0.1', port: 8768, publicHosts: [], trustedProxy: undefined });
  });
  it.each(['0.0.0.0', '::', '192.168.1.5', 'example.com', '::ffff:127.0.0.1'])('refuses to bind %s', (host) => {
    expect(() => webSettingsFromEnv({ TERMINAL_MCP_WEB_HOST: host })).toThrow(/loopback/);
  });
  it('refuses a trusted proxy that is not an IP address and a bad port', () => {
    expect(() => webSettingsFromEnv({ TERMINAL_MCP_TRUSTED_PROXY: 'proxy.local' })).toThrow(/TRUSTED_PROXY/);
    expect(() => webSettingsFromEnv({ TERMINAL_MCP_WEB_PORT: '99999' })).toThrow(/PORT/);
  });
  it('accepts loopback spellings', () => {
    for (const h of ['127.0.0.1', '127.0.0.2', 'localhost', '::1', '[::1]']) expect(webSettingsFromEnv({ TERMINAL_MCP_WEB_HOST: h }).host).toBe(h);
  });
});

describe('resolveRequestOrigin', () => {
  const xff = { 'x-forwarded-proto': 'https', 'x-forwarded-for': '203.0.113.9, 198.51.100.7' };
  it('ignores X-Forwarded-* without a trusted proxy', () => {
    expect(resolveRequestOrigin('127.0.0.1', xff, undefined)).toEqual({ protocol: 'http', clientIp: '127.0.0.1' });
  });
  it('ignores them from any other peer', () => {
    expect(resolveRequestOrigin('::ffff:127.0.0.1', xff, '127.0.0.5')).toEqual({ protocol: 'http', clientIp: '127.0.0.1' });
  });
  it('believes the trusted proxy: its scheme and the right-most address it appended', () => {
    expect(resolveRequestOrigin('::ffff:127.0.0.5', xff, '127.0.0.5')).toEqual({ protocol: 'https', clientIp: '198.51.100.7' });
  });
  it('falls back to the socket address when the proxy sends garbage', () => {
    expect(resolveRequestOrigin('127.0.0.5', { 'x-forwarded-for': 'not-an-ip' }, '127.0.0.5')).toEqual({ protocol: 'http', clientIp: '127.0.0.5' });
  });
});
