/** HTTP gateway settings from the environment. A setting that cannot be read stops the
 * start with a message naming the variable: a typo must not quietly widen exposure. */
import { parsePortSetting, parsePublicHostsSetting, type PublicHost } from '@terminal-mcp/http-guard';
import { readClientIpHeader, readPublicUrl } from '@terminal-mcp/oauth-http';

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

const refusal = (message: string) => new GatewayConfigError(message);

export interface GatewayHttpSettings {
  host: string;
  port: number;
  publicHosts: PublicHost[];
  token: string | undefined;
  /** The tunnel's https origin. When set, /mcp requires OAuth (the gateway serves its own
   * authorization server at the root); the static token still works on loopback. */
  publicUrl: string | undefined;
  /** A header the tunnel sets to the real client address (e.g. cf-connecting-ip); keys
   * sign-in and registration throttling only. */
  clientIpHeader: string | undefined;
}

export function readToken(raw: string | undefined, variable = 'TERMINAL_MCP_GATEWAY_TOKEN'): string | undefined {
  if (raw === undefined || raw === '') return undefined;
  if (/\s/.test(raw)) throw new GatewayConfigError(`${variable} must not contain whitespace`);
  return raw;
}

export function httpSettingsFromEnv(env: NodeJS.ProcessEnv): GatewayHttpSettings {
  return {
    host: env.TERMINAL_MCP_GATEWAY_HOST?.trim() || DEFAULT_GATEWAY_HOST,
    port: parsePortSetting(env.TERMINAL_MCP_GATEWAY_PORT, 'TERMINAL_MCP_GATEWAY_PORT', DEFAULT_GATEWAY_PORT, refusal),
    publicHosts: parsePublicHostsSetting(env.TERMINAL_MCP_PUBLIC_HOSTS, 'TERMINAL_MCP_PUBLIC_HOSTS', refusal),
    token: readToken(env.TERMINAL_MCP_GATEWAY_TOKEN),
    publicUrl: readPublicUrl(env.TERMINAL_MCP_GATEWAY_PUBLIC_URL, 'TERMINAL_MCP_GATEWAY_PUBLIC_URL', refusal),
    clientIpHeader: readClientIpHeader(env.TERMINAL_MCP_GATEWAY_CLIENT_IP_HEADER, 'TERMINAL_MCP_GATEWAY_CLIENT_IP_HEADER', refusal),
  };
}
