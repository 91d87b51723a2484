// Guards: the HTTP gateway may listen on loopback addresses only and reads its settings strictly (the address rule itself is tested in shared/http-guard).
import { describe, expect, it } from 'vitest';
import { GatewayConfigError, httpSettingsFromEnv } from './http/options.js';
import { startGatewayHttp } from './http/gateway-http.js';

describe('startGatewayHttp', () => {
  it.each(['0.0.0.0', '::', '192.168.1.10', 'example.com'])('refuses to listen on %s', async (host) => {
    await expect(startGatewayHttp({ host, port: 0 })).rejects.toBeInstanceOf(GatewayConfigError);
  });
});

describe('httpSettingsFromEnv', () => {
  it('defaults to 127.0.0.1:8766 without a token', () => {
    expect(httpSettingsFromEnv({})).toEqual({ host: '127.0.0.1', port: 8766, publicHosts: [], token: undefined, allowOpen: false });
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
      allowOpen: false,
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
