/** Observer settings from the environment. A setting that cannot be read stops the start
 * with a message naming the variable: a typo must not quietly widen exposure. */
import { httpServiceSettingsFromEnv, ServiceConfigError, type HttpServiceSettings } from '@terminal-mcp/mcp-kit';
import { readPublicUrl as readSharedPublicUrl } from '@terminal-mcp/oauth-http';

export const DEFAULT_OBSERVER_HOST = '127.0.0.1';
export const DEFAULT_OBSERVER_PORT = 8767;

/** Refusals to start; the command exits with status 2 on these. */
export class ObserverConfigError extends ServiceConfigError {
  constructor(message: string) {
    super('OBSERVER_CONFIG', message);
    this.name = 'ObserverConfigError';
  }
}

const refusal = (message: string) => new ObserverConfigError(message);

/** `publicUrl` undefined means `http://127.0.0.1:<port>`; the OAuth issuer and the
 * resource URL derive from it. */
export type ObserverHttpSettings = HttpServiceSettings;

/** The public origin (see @terminal-mcp/oauth-http's readPublicUrl). */
export function readPublicUrl(raw: string | undefined, variable = 'TERMINAL_MCP_OBSERVER_PUBLIC_URL'): string | undefined {
  return readSharedPublicUrl(raw, variable, refusal);
}

export function observerSettingsFromEnv(env: NodeJS.ProcessEnv): ObserverHttpSettings {
  return httpServiceSettingsFromEnv(env, { prefix: 'TERMINAL_MCP_OBSERVER', defaultHost: DEFAULT_OBSERVER_HOST, defaultPort: DEFAULT_OBSERVER_PORT, refusal });
}
