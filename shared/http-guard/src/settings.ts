/**
 * The environment settings every HTTP edge reads the same way. A value that cannot be
 * read is refused, never defaulted: a typo must not quietly widen exposure. `refusal`
 * builds the service's own configuration error (exit status 2 in the binaries).
 */
import { parsePublicHosts, type PublicHost } from './host-origin.js';

/** A TCP port (0-65535); unset or blank means `fallback`. */
export function parsePortSetting(raw: string | undefined, variable: string, fallback: number, refusal: (message: string) => Error): number {
  if (raw === undefined || raw.trim() === '') return fallback;
  if (!/^\d{1,5}$/.test(raw.trim()) || Number(raw) > 65535) {
    throw refusal(`${variable}=${JSON.stringify(raw)} is not a port number (0-65535)`);
  }
  return Number(raw);
}

/** A comma-separated list of public host names; unset means none. */
export function parsePublicHostsSetting(raw: string | undefined, variable: string, refusal: (message: string) => Error): PublicHost[] {
  const { hosts, invalid } = parsePublicHosts((raw ?? '').split(','));
  if (invalid.length > 0) {
    throw refusal(`${variable} has entries that are not host names: ${invalid.map((e) => JSON.stringify(e)).join(', ')}`);
  }
  return hosts;
}
