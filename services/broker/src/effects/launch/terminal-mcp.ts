#!/usr/bin/env node
/**
 * `terminal-mcp`: with no arguments, what desktop MCP clients launch: the stdio MCP
 * gateway, starting a broker in the background when none answers (stdio-launch.ts).
 * Nothing but MCP goes to stdout then. With a subcommand, the operator's lifecycle tool:
 * status, stop, doctor, client-config, backup, restore.
 *
 * This lives in the broker's effects layer because it spawns processes and reads the
 * state directory; the gateway itself never does.
 */
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { BROKER_VERSION } from '../package-info.js';
import { backupCommand, restoreCommand } from './backup-command.js';
import { CLIENTS, clientConfigCommand } from './client-config-command.js';
import { doctorCommand } from './doctor-command.js';
import { registryCleanupMain } from './registry-cleanup-cli.js';
import { statusCommand } from './status-command.js';
import { ensureBrokerRunning, holdBrokerPresence } from './stdio-launch.js';
import { stopCommand } from './stop-command.js';

const USAGE = `usage: terminal-mcp [command]

  (no command)          the MCP server on stdio, for desktop clients; starts a broker in the
                        background if none runs (it exits after TERMINAL_MCP_BROKER_IDLE_EXIT_SECONDS,
                        default 300, with no client)
  status [--json]       the running broker (pid, version, config in force), sockets, services, tmux
  stop                  stop the broker and every service npm start started
  doctor [--json]       check node, tmux, bins, directories, stores, ports and config; prints fixes
  client-config CLIENT  a config snippet with this checkout's absolute paths; CLIENT is one of
                        ${CLIENTS.join(', ')}
  backup DIR            consistent copy of every store, the audit key, note images and the config
                        (the broker may run; its config when TERMINAL_MCP_CONFIG is not set)
  restore DIR           restore a backup into the state directory (the broker must be stopped)
  registry-cleanup ...  plan (dry run) or apply the cleanup of gone sessions' registry rows;
                        --verbose, --json, --apply --confirm-count N (docs/session-registry.md)
  --help, --version

Paths come from TERMINAL_MCP_STATE_DIR, TERMINAL_MCP_SOCKET_DIR, TERMINAL_MCP_CONFIG and
TERMINAL_MCP_TMUX_SOCKET, as for every service. See docs/operations.md.
`;

async function serveStdio(): Promise<void> {
  const state = await ensureBrokerRunning(process.env);
  if (state === 'failed') {
    process.stderr.write('terminal-mcp: the broker did not come up; tools will answer BROKER_UNAVAILABLE until it does\n');
  }
  holdBrokerPresence(process.env);
  // The stdio launcher is the one process that is both: it starts the broker (an effect of
  // this package) and then serves MCP over stdio with the gateway's code, in-process.
  // @terminal-mcp/gateway is therefore a declared dependency of this package
  // (package.json), so the edge shows in the package graph; the gateway imports broker
  // TYPES only, as every client does.
  const require = createRequire(import.meta.url);
  const gatewayStdio = require.resolve('@terminal-mcp/gateway/stdio');
  await import(pathToFileURL(gatewayStdio).href);
}

async function main(argv: string[]): Promise<void> {
  const [command, ...args] = argv;
  const env = process.env;
  const exit = (code: number) => process.exit(code);
  switch (command) {
    case undefined:
      return serveStdio();
    case '--help':
    case '-h':
    case 'help':
      process.stdout.write(USAGE);
      return exit(0);
    case '--version':
    case '-V':
      process.stdout.write(`terminal-mcp ${BROKER_VERSION}\n`);
      return exit(0);
    case 'status':
      return exit(await statusCommand(args, env));
    case 'stop':
      return exit(await stopCommand(args, env));
    case 'doctor':
      return exit(await doctorCommand(args, env));
    case 'client-config':
      return exit(clientConfigCommand(args, env));
    case 'backup':
      return exit(await backupCommand(args, env));
    case 'restore':
      return exit(await restoreCommand(args, env));
    case 'registry-cleanup':
      return exit(await registryCleanupMain(['cleanup', ...args]));
    default:
      process.stderr.write(`terminal-mcp: unknown command ${JSON.stringify(command.slice(0, 40))}\n${USAGE}`);
      return exit(2);
  }
}

main(process.argv.slice(2)).catch((err: unknown) => {
  process.stderr.write(`terminal-mcp: ${(err as Error).message}\n`);
  process.exit(1);
});
