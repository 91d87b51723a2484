// Guards: the HTTP gateway may listen on loopback addresses only (127.0.0.0/8, ::1, localhost); wildcard, LAN and public addresses are refused.
import { describe, expect, it } from 'vitest';
import { hostForUrl, isLoopbackBindAddress } from './http/loopback.js';
import { GatewayConfigError, httpSettingsFromEnv } from './http/options.js';
import { startGatewayHttp } from './http/gateway-http.js';

describe('isLoopbackBindAddress', () => {
  it.each([
    ['127.0.0.1', true],
    ['127.0.0.2', true],
    ['127.255.255.254', true],
    ['localhost', true],
    ['LocalHost', true],
    ['::1', true],
    ['[::1]', true],
    ['0:0:0:0:0:0:0:1', true],
    ['0.0.0.0', false],
    ['::', false],
    ['[::]', false],
    ['192.168.1.10', false],
    ['10.0.0.1', false],
    ['128.0.0.1', false],
    ['1.127.0.0', false],
    ['127.1', false],
    ['0127.0.0.1', false],
    ['127.0.0.256', false],
    ['::ffff:127.0.0.1', false],
    ['localhost.evil.example', false],
    ['example.com', false],
    ['', false],
  ])('%j -> %s', (host, loopback) => {
    expect(isLoopbackBindAddress(host)).toBe(loopback);
  });
});

describe('hostForUrl', () => {
  it('brackets IPv6 literals only', () => {
    expect(hostForUrl('::1')).toBe('[::1]');
    expect(hostForUrl('[::1]')).toBe('[::1]');
    expect(hostForUrl('127.0.0.1')).toBe('127.0.0.1');
    expect(hostForUrl('localhost')).toBe('localhost');
  });
});

describe('startGatewayHttp', () => {
  it.each(['0.0.0.0', '::', '192.168.1.10', 'example.com'])('refuses to listen on %s', async (host) => {
    await expect(startGatewayHttp({ host, port: 0 })).rejects.toBeInstanceOf(GatewayConfigError);
  });
});

describe('httpSettingsFromEnv', () => {
  it('defaults to 127.0.0.1:8766 without a token', () => {
    expect(httpSettingsFromEnv({})).toEqual({ host: '127.0.0.1', port: 8766, publicHosts: [], token: undefined });
  });

  it('reads host, port, public hosts and token', () => {
    const s = httpSettingsFromEnv({
      TERMINAL_MCP_GATEWAY_HOST: '::1',
      TERMINAL_MCP_GATEWAY_PORT: '9001',
      TERMINAL_MCP_PUBLIC_HOSTS: 'mcp.example.com, other.example.com:8443',
      TERMINAL_MCP_GATEWAY_TOKEN: 's3cret-token',
    });
    expect(s).toEqual({
      host: '::1',
      port: 9001,
      publicHosts: [{ hostname: 'mcp.example.com' }, { hostname: 'other.example.com', port: 8443 }],
      token: 's3cret-token',
    });
  });

  it.each([
    { TERMINAL_MCP_GATEWAY_PORT: 'eighty' },
    { TERMINAL_MCP_GATEWAY_PORT: '70000' },
    { TERMINAL_MCP_PUBLIC_HOSTS: 'good.example.com,bad host' },
    { TERMINAL_MCP_GATEWAY_TOKEN: 'has space' },
  ])('refuses %j', (env) => {
    expect(() => httpSettingsFromEnv(env)).toThrow(GatewayConfigError);
  });
});
