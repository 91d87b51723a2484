#!/usr/bin/env node
/** `terminal-mcp-broker`: the privileged broker. Logs JSON to stderr; stops cleanly on
 * SIGINT/SIGTERM, and by itself after an idle period when TERMINAL_MCP_BROKER_IDLE_EXIT_SECONDS
 * is set (only the stdio launcher sets it). An invalid config stops it with a message
 * naming the key. */
import { homedir } from 'node:os';
import { join } from 'node:path';
import { resolvePaths, serviceCommandFlags } from '@terminal-mcp/contract';
import { createLogSink } from '@terminal-mcp/http-guard/log-sink';
import { ConfigError } from '../config/parse.js';
import { loadConfigFile } from '../effects/config-file.js';
import { listenEarly } from '../effects/early-sockets.js';
import { holdStartIfRequested } from '../effects/fault-injection.js';
import { BROKER_VERSION } from '../effects/package-info.js';
import { acquireInstanceLock, BrokerAlreadyRunningError, ensureSocketDir, resolveSocketGroups } from '../effects/socket-files.js';
import { armStopWatchdog, type StopWatchdog } from '../effects/stop-watchdog.js';
// start-broker.js (every procedure, store and effect) and input/services.js are imported
// only once the sockets listen: loading them is most of a start (seconds on a busy
// machine), and a client that connects meanwhile waits for it instead of finding no broker
// (effects/early-sockets.ts).
import type { RunningBroker } from '../start-broker.js';
import type { closeInterruptedInput as CloseInterruptedInput } from '../input/services.js';

const SUMMARY = `The privileged Terminal MCP broker: the only process that runs tmux and git and opens
the SQLite stores. Serves gateway.sock, observer.sock and web.sock in the socket directory.

Environment: TERMINAL_MCP_CONFIG (config.yaml), TERMINAL_MCP_STATE_DIR, TERMINAL_MCP_SOCKET_DIR,
TERMINAL_MCP_TMUX_SOCKET (tmux -L name), TERMINAL_MCP_LOG_LEVEL,
TERMINAL_MCP_BROKER_IDLE_EXIT_SECONDS (0 or unset: never exit when idle).
See docs/operations.md; \`terminal-mcp status\` shows a running broker.`;

/** The broker promises to exit within 5 s of SIGTERM. Its stop takes well under a second
 * (every step is bounded by its own deadline, start-broker.ts STOP_STEP_DEADLINE_MS);
 * should the whole overrun anyway, the broker closes the input attempts still PENDING as
 * DELIVERY_UNKNOWN, logs the step it waited on, and exits with STOP_FORCED_EXIT_CODE at
 * this deadline rather than wait for `terminal-mcp stop` or systemd to SIGKILL it.
 * Exiting there is as safe as a crash: every store write is a transaction, tmux clients
 * end with the broker (death signal) and the hidden session goes by itself. */
// 3.5 s, not 4.5: under load the SIGTERM handler itself ran up to 1.8 s after the signal
// (20 input clients and two CPU hogs on 2 cores), and these count from the handler.
const STOP_DEADLINE_MS = 3_500;
/** A stop whose event loop no longer turns (a synchronous step) cannot reach the deadline
 * above: a watchdog thread SIGKILLs it here (effects/stop-watchdog.ts). */
const STOP_WATCHDOG_MS = 3_800;
/** The exit status of a stop that was forced at its deadline (docs/operations.md). */
const STOP_FORCED_EXIT_CODE = 3;
/** How long the last log lines may take to reach stderr's reader before the exit. */
const LOG_DRAIN_MS = 300;

async function main(): Promise<void> {
  const flags = serviceCommandFlags(process.argv.slice(2), { name: 'terminal-mcp-broker', version: BROKER_VERSION, summary: SUMMARY });
  if (flags) {
    process[flags.stream].write(flags.text);
    process.exit(flags.exitCode);
  }
  // Never blocks or loops, whatever became of stderr's reader (effects/logger.ts).
  const logSink = createLogSink();
  let exiting = false;
  const exitAfterDrain = (code: number) => {
    if (exiting) return;
    exiting = true;
    void logSink.drain(LOG_DRAIN_MS).then(() => process.exit(code));
  };
  let broker: RunningBroker | undefined;
  /** Loaded with the broker (below); a broker that is not built yet has no attempts. */
  let closeInterruptedInput: typeof CloseInterruptedInput | undefined;
  /** Why the broker was asked to stop (a signal may come while it still starts). */
  let stopReason: string | undefined;
  let watchdog: StopWatchdog | undefined;
  const stopOnce = (running: NonNullable<typeof broker>) => {
    running.deps.log.info({ event: 'broker.stopping', why: stopReason }, 'stopping');
    running.stop((step) => watchdog?.step(step)).then(
      () => exitAfterDrain(0),
      () => exitAfterDrain(1),
    );
  };
  const shutdown = (why: string) => {
    if (stopReason !== undefined) return;
    stopReason = why;
    try {
      watchdog = armStopWatchdog(STOP_WATCHDOG_MS, broker ? join(broker.deps.stores.stateDir, 'audit.db') : undefined);
    } catch {
      // No thread to spare: the deadline below is the bound.
    }
    setTimeout(() => {
      if (exiting) return;
      const closed = broker && closeInterruptedInput ? closeInterruptedInput({ audit: broker.deps.stores.audit }) : 0;
      const step = broker?.stoppingStep() ?? (broker ? 'exit' : 'starting');
      const line = { event: 'broker.stop_overdue', step, deadlineMs: STOP_DEADLINE_MS, inputClosedAsDeliveryUnknown: closed, exitCode: STOP_FORCED_EXIT_CODE };
      if (broker) broker.deps.log.error(line, 'stop did not finish in time; exiting without it');
      else logSink.write(`${JSON.stringify({ level: 50, time: Date.now(), pid: process.pid, name: 'terminal-mcp-broker', ...line, msg: 'stop did not finish in time' })}\n`);
      exitAfterDrain(STOP_FORCED_EXIT_CODE);
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
    const [{ createBroker }, input] = await Promise.all([import('../start-broker.js'), import('../input/services.js')]);
    closeInterruptedInput = input.closeInterruptedInput;
    broker = await createBroker({ env, config, early: { sockets, lock }, onIdle: () => shutdown('idle'), logSink });
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
