/** Observer settings from the environment. A setting that cannot be read stops the start
 * with a message naming the variable: a typo must not quietly widen exposure. */
import { parsePortSetting, parsePublicHostsSetting, type PublicHost } from '@terminal-mcp/http-guard';
import { readClientIpHeader as readSharedClientIpHeader, readPublicUrl as readSharedPublicUrl } from '@terminal-mcp/oauth-http';

export const DEFAULT_OBSERVER_HOST = '127.0.0.1';
export const DEFAULT_OBSERVER_PORT = 8767;

/** Refusals to start; the command exits with status 2 on these. */
export class ObserverConfigError extends Error {
  readonly code = 'OBSERVER_CONFIG';
  constructor(message: string) {
    super(message);
    this.name = 'ObserverConfigError';
  }
}

const refusal = (message: string) => new ObserverConfigError(message);

export interface ObserverHttpSettings {
  host: string;
  port: number;
  /** The origin clients reach us at (the tunnel's https URL); undefined means
   * `http://127.0.0.1:<port>`. The OAuth issuer and the resource URL derive from it. */
  publicUrl: string | undefined;
  publicHosts: PublicHost[];
  /** A header the tunnel sets to the real client address (e.g. cf-connecting-ip), used
   * only to key login throttling; undefined means the socket's address. */
  clientIpHeader: string | undefined;
}

/** The public origin (see @terminal-mcp/oauth-http's readPublicUrl). */
export function readPublicUrl(raw: string | undefined, variable = 'TERMINAL_MCP_OBSERVER_PUBLIC_URL'): string | undefined {
  return readSharedPublicUrl(raw, variable, refusal);
}

export function readClientIpHeader(raw: string | undefined, variable = 'TERMINAL_MCP_OBSERVER_CLIENT_IP_HEADER'): string | undefined {
  return readSharedClientIpHeader(raw, variable, refusal);
}

export function observerSettingsFromEnv(env: NodeJS.ProcessEnv): ObserverHttpSettings {
  return {
    host: env.TERMINAL_MCP_OBSERVER_HOST?.trim() || DEFAULT_OBSERVER_HOST,
    port: parsePortSetting(env.TERMINAL_MCP_OBSERVER_PORT, 'TERMINAL_MCP_OBSERVER_PORT', DEFAULT_OBSERVER_PORT, refusal),
    publicUrl: readPublicUrl(env.TERMINAL_MCP_OBSERVER_PUBLIC_URL),
    publicHosts: parsePublicHostsSetting(env.TERMINAL_MCP_PUBLIC_HOSTS, 'TERMINAL_MCP_PUBLIC_HOSTS', refusal),
    clientIpHeader: readClientIpHeader(env.TERMINAL_MCP_OBSERVER_CLIENT_IP_HEADER),
  };
}
