/** HTTP gateway settings from the environment. A setting that cannot be read stops the
 * start with a message naming the variable: a typo must not quietly widen exposure. */
import { httpServiceSettingsFromEnv, ServiceConfigError, type HttpServiceSettings } from '@terminal-mcp/mcp-kit';

export const DEFAULT_GATEWAY_HOST = '127.0.0.1';
export const DEFAULT_GATEWAY_PORT = 8766;

/** Refusals to start; the command exits with status 2 on these. */
export class GatewayConfigError extends ServiceConfigError {
  constructor(message: string) {
    super('GATEWAY_CONFIG', message);
    this.name = 'GatewayConfigError';
  }
}

const refusal = (message: string) => new GatewayConfigError(message);

/** `publicUrl`: the tunnel's https origin. When set, /mcp requires OAuth (the gateway
 * serves its own authorization server at the root); the static token still works on loopback. */
export interface GatewayHttpSettings extends HttpServiceSettings {
  token: string | undefined;
  /** TERMINAL_MCP_GATEWAY_ALLOW_OPEN=1: the operator accepts a gateway without a token or
   * OAuth, which every local user can reach (loopback is not a boundary on a shared
   * machine). Without it such a gateway refuses to start. */
  allowOpen: boolean;
}

/** `1`/`true`/`yes` or `0`/`false`/`no`/unset; anything else stops the start. */
export function readFlag(raw: string | undefined, variable: string): boolean {
  const value = raw?.trim().toLowerCase();
  if (value === undefined || value === '' || value === '0' || value === 'false' || value === 'no') return false;
  if (value === '1' || value === 'true' || value === 'yes') return true;
  throw new GatewayConfigError(`${variable} must be 1 or 0 (got ${JSON.stringify(raw?.slice(0, 20))})`);
}

export function readToken(raw: string | undefined, variable = 'TERMINAL_MCP_GATEWAY_TOKEN'): string | undefined {
  if (raw === undefined || raw === '') return undefined;
  if (/\s/.test(raw)) throw new GatewayConfigError(`${variable} must not contain whitespace`);
  return raw;
}

export function httpSettingsFromEnv(env: NodeJS.ProcessEnv): GatewayHttpSettings {
  const shared = httpServiceSettingsFromEnv(env, { prefix: 'TERMINAL_MCP_GATEWAY', defaultHost: DEFAULT_GATEWAY_HOST, defaultPort: DEFAULT_GATEWAY_PORT, refusal });
  return {
    ...shared,
    token: readToken(env.TERMINAL_MCP_GATEWAY_TOKEN),
    allowOpen: readFlag(env.TERMINAL_MCP_GATEWAY_ALLOW_OPEN, 'TERMINAL_MCP_GATEWAY_ALLOW_OPEN'),
  };
}

/** One line for banners: how /mcp is protected. */
export function describeProtection(protection: 'oauth' | 'token' | 'open', tokenSet: boolean): string {
  if (protection === 'oauth') return `/mcp needs OAuth${tokenSet ? ' (or the static bearer token, on a loopback Host)' : ''}`;
  if (protection === 'token') return '/mcp needs the bearer token (TERMINAL_MCP_GATEWAY_TOKEN)';
  return 'OPEN: no token and no OAuth, so every local user can read and type through /mcp (TERMINAL_MCP_GATEWAY_ALLOW_OPEN=1)';
}
