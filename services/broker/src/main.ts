#!/usr/bin/env node
/** `terminal-mcp-broker`: the privileged broker. Logs JSON to stderr; stops cleanly on
 * SIGINT/SIGTERM. An invalid config stops it with a message naming the key. */
import { ConfigError } from './config/parse.js';
import { BrokerAlreadyRunningError } from './effects/socket-files.js';
import { startBroker } from './start-broker.js';

async function main(): Promise<void> {
  let broker;
  try {
    broker = await startBroker();
  } catch (err) {
    if (err instanceof ConfigError || err instanceof BrokerAlreadyRunningError) {
      process.stderr.write(`terminal-mcp-broker: ${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    broker.deps.log.info({ event: 'broker.stopping', signal }, 'stopping');
    broker.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  if (process.send) process.send({ ready: true, sockets: broker.sockets });
}

main().catch((err: unknown) => {
  process.stderr.write(`terminal-mcp-broker: failed to start: ${(err as Error).message}\n`);
  process.exit(1);
});
