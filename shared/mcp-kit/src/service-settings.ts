/** The HTTP settings both MCP front ends read from the environment, under their own
 * prefix (TERMINAL_MCP_GATEWAY_*, TERMINAL_MCP_OBSERVER_*). A setting that cannot be read
 * stops the start with a message naming the variable: a typo must not quietly widen
 * exposure. */
import { parsePortSetting, parsePublicHostsSetting, type PublicHost } from '@terminal-mcp/http-guard';
import { readClientIpHeader, readPublicUrl } from '@terminal-mcp/oauth-http';

/** A refusal to start; the service's binary exits with status 2 on it (service-bin.ts). */
export class ServiceConfigError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'ServiceConfigError';
  }
}

export interface HttpServiceSettings {
  host: string;
  port: number;
  /** Tunnel host names accepted in Host/Origin besides the loopback names. */
  publicHosts: PublicHost[];
  /** The origin clients reach us at (the tunnel's https URL); undefined: this machine's. */
  publicUrl: string | undefined;
  /** A header the tunnel sets to the real client address (e.g. cf-connecting-ip); keys
   * sign-in and registration throttling only; undefined means the socket's address. */
  clientIpHeader: string | undefined;
}

export interface HttpServiceSettingsSpec {
  /** e.g. TERMINAL_MCP_GATEWAY: its _HOST, _PORT, _PUBLIC_URL and _CLIENT_IP_HEADER are read. */
  prefix: string;
  defaultHost: string;
  defaultPort: number;
  refusal: (message: string) => Error;
}

export function httpServiceSettingsFromEnv(env: NodeJS.ProcessEnv, spec: HttpServiceSettingsSpec): HttpServiceSettings {
  const { prefix, refusal } = spec;
  return {
    host: env[`${prefix}_HOST`]?.trim() || spec.defaultHost,
    port: parsePortSetting(env[`${prefix}_PORT`], `${prefix}_PORT`, spec.defaultPort, refusal),
    publicHosts: parsePublicHostsSetting(env.TERMINAL_MCP_PUBLIC_HOSTS, 'TERMINAL_MCP_PUBLIC_HOSTS', refusal),
    publicUrl: readPublicUrl(env[`${prefix}_PUBLIC_URL`], `${prefix}_PUBLIC_URL`, refusal),
    clientIpHeader: readClientIpHeader(env[`${prefix}_CLIENT_IP_HEADER`], `${prefix}_CLIENT_IP_HEADER`, refusal),
  };
}
