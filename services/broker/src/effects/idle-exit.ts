/**
 * Idle exit for a broker that `terminal-mcp` (stdio) started by itself: with no client
 * connected to any role socket for TERMINAL_MCP_BROKER_IDLE_EXIT_SECONDS, it stops, so a
 * one-off desktop client does not leave a broker running forever. The launcher keeps a
 * connection open for as long as its client runs, so an idle chat is not "no clients".
 * Unset or 0 means never (npm start and systemd brokers): only the launcher sets it.
 */
import type { Server } from 'node:net';
import { ConfigError } from '../config/parse.js';

export const IDLE_EXIT_ENV = 'TERMINAL_MCP_BROKER_IDLE_EXIT_SECONDS';
const MAX_IDLE_EXIT_SECONDS = 7 * 24 * 3600;

/** Seconds, 0 meaning never; a malformed value is a config error (exit 2), not "never". */
export function idleExitSeconds(env: NodeJS.ProcessEnv): number {
  const raw = env[IDLE_EXIT_ENV];
  if (raw === undefined || raw.trim() === '') return 0;
  if (!/^\d{1,7}$/.test(raw.trim()) || Number(raw) > MAX_IDLE_EXIT_SECONDS) {
    throw new ConfigError([`${IDLE_EXIT_ENV} must be a whole number of seconds from 0 (never) to ${MAX_IDLE_EXIT_SECONDS}, not ${JSON.stringify(raw.slice(0, 40))}`], 'environment');
  }
  return Number(raw);
}

export interface IdleWatch {
  /** Open client connections right now (for logs and tests). */
  openConnections(): number;
  close(): void;
}

/** Calls `onIdle` once when no connection has been open on any of `servers` for
 * `idleSeconds`. The open connections are counted by the servers themselves, once a
 * second (so a connection accepted before the watch began counts too); a new connection
 * also restarts the clock at once. Exiting a second late does not matter. */
export function watchForIdle(servers: readonly Server[], idleSeconds: number, onIdle: () => void): IdleWatch {
  let open = 0;
  let idleSince = Date.now();
  const onConnection = () => {
    idleSince = Date.now();
  };
  for (const server of servers) server.on('connection', onConnection);
  const count = () =>
    Promise.all(servers.map((s) => new Promise<number>((resolve) => s.getConnections((err, n) => resolve(err ? 1 : n))))).then((ns) => ns.reduce((a, b) => a + b, 0));
  let fired = false;
  const timer = setInterval(() => {
    void count().then((n) => {
      open = n;
      if (n > 0) idleSince = Date.now();
      else if (!fired && Date.now() - idleSince >= idleSeconds * 1000) {
        fired = true;
        clearInterval(timer);
        onIdle();
      }
    });
  }, 1000);
  timer.unref();
  return {
    openConnections: () => open,
    close() {
      clearInterval(timer);
      for (const server of servers) server.off('connection', onConnection);
    },
  };
}
