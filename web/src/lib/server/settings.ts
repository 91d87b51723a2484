/** terminal-mcp-web settings from the environment. A setting that cannot be read stops
 * the start with a message naming the variable: a typo must not quietly widen exposure. */
import { isIP } from 'node:net';
import { isLoopbackBindAddress, parsePortSetting, parsePublicHostsSetting, type PublicHost } from '@terminal-mcp/http-guard';

export const DEFAULT_WEB_HOST = '127.0.0.1';
export const DEFAULT_WEB_PORT = 8768;

export class WebConfigError extends Error {
  readonly code = 'WEB_CONFIG';
  constructor(message: string) {
    super(message);
    this.name = 'WebConfigError';
  }
}

const refusal = (message: string) => new WebConfigError(message);

export interface WebSettings {
  host: string;
  port: number;
  publicHosts: PublicHost[];
  /** The one proxy address whose X-Forwarded-* headers are believed. */
  trustedProxy: string | undefined;
}

export function webSettingsFromEnv(env: NodeJS.ProcessEnv): WebSettings {
  const host = env.TERMINAL_MCP_WEB_HOST?.trim() || DEFAULT_WEB_HOST;
  if (!isLoopbackBindAddress(host)) {
    throw new WebConfigError(`TERMINAL_MCP_WEB_HOST=${JSON.stringify(host)} is not a loopback address; the dashboard listens on loopback only (use an authenticated tunnel for remote access)`);
  }
  const publicHosts = parsePublicHostsSetting(env.TERMINAL_MCP_PUBLIC_HOSTS, 'TERMINAL_MCP_PUBLIC_HOSTS', refusal);
  const proxy = env.TERMINAL_MCP_TRUSTED_PROXY?.trim() || undefined;
  if (proxy !== undefined && isIP(proxy) === 0) {
    throw new WebConfigError(`TERMINAL_MCP_TRUSTED_PROXY=${JSON.stringify(proxy)} is not an IP address`);
  }
  return { host, port: parsePortSetting(env.TERMINAL_MCP_WEB_PORT, 'TERMINAL_MCP_WEB_PORT', DEFAULT_WEB_PORT, refusal), publicHosts, trustedProxy: proxy };
}
