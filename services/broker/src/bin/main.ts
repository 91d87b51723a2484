#!/usr/bin/env node
/** `terminal-mcp-broker`: the privileged broker. Logs JSON to stderr; stops cleanly on
 * SIGINT/SIGTERM, and by itself after an idle period when TERMINAL_MCP_BROKER_IDLE_EXIT_SECONDS
 * is set (only the stdio launcher sets it). An invalid config stops it with a message
 * naming the key. */
import { serviceCommandFlags } from '@terminal-mcp/contract';
import { ConfigError } from '../config/parse.js';
import { BROKER_VERSION } from '../effects/package-info.js';
import { BrokerAlreadyRunningError } from '../effects/socket-files.js';
import { createBroker } from '../start-broker.js';

const SUMMARY = `The privileged Terminal MCP broker: the only process that runs tmux and git and opens
the SQLite stores. Serves gateway.sock, observer.sock and web.sock in the socket directory.

Environment: TERMINAL_MCP_CONFIG (config.yaml), TERMINAL_MCP_STATE_DIR, TERMINAL_MCP_SOCKET_DIR,
TERMINAL_MCP_TMUX_SOCKET (tmux -L name), TERMINAL_MCP_LOG_LEVEL,
TERMINAL_MCP_BROKER_IDLE_EXIT_SECONDS (0 or unset: never exit when idle).
See docs/operations.md; \`terminal-mcp status\` shows a running broker.`;

async function main(): Promise<void> {
  const flags = serviceCommandFlags(process.argv.slice(2), { name: 'terminal-mcp-broker', version: BROKER_VERSION, summary: SUMMARY });
  if (flags) {
    process[flags.stream].write(flags.text);
    process.exit(flags.exitCode);
  }
  let broker: Awaited<ReturnType<typeof createBroker>> | undefined;
  let stopping = false;
  const shutdown = (why: string) => {
    if (stopping || !broker) return;
    stopping = true;
    broker.deps.log.info({ event: 'broker.stopping', why }, 'stopping');
    broker.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  try {
    broker = await createBroker({ onIdle: () => shutdown('idle') });
  } catch (err) {
    if (err instanceof ConfigError || err instanceof BrokerAlreadyRunningError) {
      process.stderr.write(`terminal-mcp-broker: ${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  if (process.send) process.send({ ready: true, sockets: broker.sockets });
}

main().catch((err: unknown) => {
  process.stderr.write(`terminal-mcp-broker: failed to start: ${(err as Error).message}\n`);
  process.exit(1);
});
