#!/usr/bin/env node
/** `terminal-mcp-broker`: the privileged broker. Logs JSON to stderr; stops cleanly on
 * SIGINT/SIGTERM, and by itself after an idle period when TERMINAL_MCP_BROKER_IDLE_EXIT_SECONDS
 * is set (only the stdio launcher sets it). An invalid config stops it with a message
 * naming the key. */
import { homedir } from 'node:os';
import { resolvePaths, serviceCommandFlags } from '@terminal-mcp/contract';
import { ConfigError } from '../config/parse.js';
import { loadConfigFile } from '../effects/config-file.js';
import { listenEarly } from '../effects/early-sockets.js';
import { holdStartIfRequested } from '../effects/fault-injection.js';
import { BROKER_VERSION } from '../effects/package-info.js';
import { acquireInstanceLock, BrokerAlreadyRunningError, ensureSocketDir, resolveSocketGroups } from '../effects/socket-files.js';
// start-broker.js (every procedure, store and effect) is imported only once the sockets
// listen: loading it is most of a start (seconds on a busy machine), and a client that
// connects meanwhile waits for it instead of finding no broker (effects/early-sockets.ts).
import type { RunningBroker } from '../start-broker.js';

const SUMMARY = `The privileged Terminal MCP broker: the only process that runs tmux and git and opens
the SQLite stores. Serves gateway.sock, observer.sock and web.sock in the socket directory.

Environment: TERMINAL_MCP_CONFIG (config.yaml), TERMINAL_MCP_STATE_DIR, TERMINAL_MCP_SOCKET_DIR,
TERMINAL_MCP_TMUX_SOCKET (tmux -L name), TERMINAL_MCP_LOG_LEVEL,
TERMINAL_MCP_BROKER_IDLE_EXIT_SECONDS (0 or unset: never exit when idle).
See docs/operations.md; \`terminal-mcp status\` shows a running broker.`;

/** The broker promises to exit within 5 s of SIGTERM. Its stop takes well under a second
 * (every step is bounded: tmux children get SIGKILL after a few seconds, WebSocket
 * clients are cut after 1 s); should a step hang anyway, the broker exits at this
 * deadline, logging the step, rather than wait for `terminal-mcp stop` or systemd to
 * SIGKILL it. Exiting there is as safe as a crash: every store write is a transaction,
 * tmux clients end with the broker (death signal) and the hidden session goes by itself. */
const STOP_DEADLINE_MS = 4_000;

async function main(): Promise<void> {
  const flags = serviceCommandFlags(process.argv.slice(2), { name: 'terminal-mcp-broker', version: BROKER_VERSION, summary: SUMMARY });
  if (flags) {
    process[flags.stream].write(flags.text);
    process.exit(flags.exitCode);
  }
  let broker: RunningBroker | undefined;
  /** Why the broker was asked to stop (a signal may come while it still starts). */
  let stopReason: string | undefined;
  const stopOnce = (running: NonNullable<typeof broker>) => {
    running.deps.log.info({ event: 'broker.stopping', why: stopReason }, 'stopping');
    running.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  const shutdown = (why: string) => {
    if (stopReason !== undefined) return;
    stopReason = why;
    setTimeout(() => {
      broker?.deps.log.error({ event: 'broker.stop_overdue', step: broker.stoppingStep() ?? 'starting', deadlineMs: STOP_DEADLINE_MS }, 'stop did not finish in time; exiting without it');
      process.exit(1);
    }, STOP_DEADLINE_MS).unref();
    // Still starting: stopped as soon as it is built (createBroker closes what it built
    // when it fails).
    if (broker) stopOnce(broker);
  };
  // Before anything is built: a SIGTERM during the start must not kill the broker
  // with the signal's default action, leaving its lock, sockets and broker.json behind.
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  try {
    // The config first (a bad one stops the broker before it listens), then the instance
    // lock and the sockets, then everything else.
    const env = process.env;
    const paths = resolvePaths(env, homedir());
    const config = loadConfigFile(paths.configPath);
    ensureSocketDir(paths.socketDir);
    const groups = resolveSocketGroups(env.TERMINAL_MCP_SOCKET_GROUPS);
    const lock = acquireInstanceLock(paths.socketDir);
    let sockets;
    try {
      sockets = await listenEarly(paths.socketDir, groups);
    } catch (err) {
      lock.release();
      throw err;
    }
    await holdStartIfRequested();
    const { createBroker } = await import('../start-broker.js');
    broker = await createBroker({ env, config, early: { sockets, lock }, onIdle: () => shutdown('idle') });
  } catch (err) {
    // A damaged store is matched by name: its class lives with the stores, which are loaded
    // only after the sockets listen (importing it here would load SQLite first).
    if (err instanceof ConfigError || err instanceof BrokerAlreadyRunningError || (err instanceof Error && err.name === 'StoreDamagedError')) {
      process.stderr.write(`terminal-mcp-broker: ${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  if (stopReason !== undefined) return stopOnce(broker);
  if (process.send) process.send({ ready: true, sockets: broker.sockets });
}

main().catch((err: unknown) => {
  process.stderr.write(`terminal-mcp-broker: failed to start: ${(err as Error).message}\n`);
  process.exit(1);
});
