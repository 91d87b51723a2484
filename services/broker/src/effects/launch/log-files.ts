/** Where services started without systemd log: `<state dir>/logs/<service>.log`, JSON
 * lines appended (the directory 0700, files 0600: log lines name sessions and users).
 * The stdio launcher's broker and every service of `npm start` write here; systemd
 * services log to the journal instead. */
import { mkdirSync, openSync } from 'node:fs';
import { join } from 'node:path';

export function logDir(stateDir: string): string {
  return join(stateDir, 'logs');
}

export function serviceLogPath(stateDir: string, service: string): string {
  return join(logDir(stateDir), `${service}.log`);
}

/** Opens (creating) the service's log for appending; the caller closes the fd. */
export function openServiceLog(stateDir: string, service: string): { fd: number; path: string } {
  mkdirSync(logDir(stateDir), { recursive: true, mode: 0o700 });
  const path = serviceLogPath(stateDir, service);
  return { fd: openSync(path, 'a', 0o600), path };
}
