/** HTTP gateway settings from the environment. A setting that cannot be read stops the
 * start with a message naming the variable: a typo must not quietly widen exposure. */
import { parsePublicHosts, type PublicHost } from '@terminal-mcp/http-guard';

export const DEFAULT_GATEWAY_HOST = '127.0.0.1';
export const DEFAULT_GATEWAY_PORT = 8766;

/** Refusals to start; the command exits with status 2 on these. */
export class GatewayConfigError extends Error {
  readonly code = 'GATEWAY_CONFIG';
  constructor(message: string) {
    super(message);
    this.name = 'GatewayConfigError';
  }
}

export interface GatewayHttpSettings {
  host: string;
  port: number;
  publicHosts: PublicHost[];
  token: string | undefined;
}

export function parsePort(raw: string | undefined, variable: string, fallback: number): number {
  if (raw === undefined || raw.trim() === '') return fallback;
  if (!/^\d{1,5}$/.test(raw.trim()) || Number(raw) > 65535) {
    throw new GatewayConfigError(`${variable}=${JSON.stringify(raw)} is not a port number (0-65535)`);
  }
  return Number(raw);
}

export function readPublicHosts(raw: string | undefined, variable = 'TERMINAL_MCP_PUBLIC_HOSTS'): PublicHost[] {
  const { hosts, invalid } = parsePublicHosts((raw ?? '').split(','));
  if (invalid.length > 0) {
    throw new GatewayConfigError(`${variable} has entries that are not host names: ${invalid.map((e) => JSON.stringify(e)).join(', ')}`);
  }
  return hosts;
}

export function readToken(raw: string | undefined, variable = 'TERMINAL_MCP_GATEWAY_TOKEN'): string | undefined {
  if (raw === undefined || raw === '') return undefined;
  if (/\s/.test(raw)) throw new GatewayConfigError(`${variable} must not contain whitespace`);
  return raw;
}

export function httpSettingsFromEnv(env: NodeJS.ProcessEnv): GatewayHttpSettings {
  return {
    host: env.TERMINAL_MCP_GATEWAY_HOST?.trim() || DEFAULT_GATEWAY_HOST,
    port: parsePort(env.TERMINAL_MCP_GATEWAY_PORT, 'TERMINAL_MCP_GATEWAY_PORT', DEFAULT_GATEWAY_PORT),
    publicHosts: readPublicHosts(env.TERMINAL_MCP_PUBLIC_HOSTS),
    token: readToken(env.TERMINAL_MCP_GATEWAY_TOKEN),
  };
}
