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
// Each command's module is imported when that command runs (issue 48): a desktop client
// waits for the stdio server's first answer, and loading doctor, backup and status code
// it never uses only delays it.

const USAGE = `usage: terminal-mcp [command]

  (no command)          the MCP server on stdio, for desktop clients; starts a broker in the
                        background if none runs (it exits after TERMINAL_MCP_BROKER_IDLE_EXIT_SECONDS,
                        default 300, with no client)
  status [--json]       the running broker (pid, version, config in force), sockets, services, tmux
  stop                  stop the broker and every service npm start started
  doctor [--json]       check node, tmux, bins, directories, stores, ports and config; prints fixes
  client-config CLIENT  a config snippet with this checkout's absolute paths; CLIENT is one of
                        CLIENTS
  backup DIR            consistent copy of every store, the audit key, note images and the config
                        (the broker may run; its config when TERMINAL_MCP_CONFIG is not set)
  restore DIR           restore a backup into the state directory (the broker must be stopped)
  registry-cleanup ...  plan (dry run) or apply the cleanup of gone sessions' registry rows;
                        --verbose, --json, --apply --confirm-count N (docs/session-registry.md)
  --help, --version

Paths come from TERMINAL_MCP_STATE_DIR, TERMINAL_MCP_SOCKET_DIR, TERMINAL_MCP_CONFIG and
TERMINAL_MCP_TMUX_SOCKET, as for every service. See docs/operations.md.
`;

/** The usage text, with the client names client-config knows. */
async function usage(): Promise<string> {
  const { CLIENTS } = await import('./client-config-command.js');
  return USAGE.replace('CLIENTS', CLIENTS.join(', '));
}

async function serveStdio(): Promise<void> {
  // The stdio launcher is the one process that is both: it starts the broker (an effect of
  // this package) and then serves MCP over stdio with the gateway's code, in-process.
  // @terminal-mcp/gateway is therefore a declared dependency of this package
  // (package.json), so the edge shows in the package graph; the gateway imports broker
  // TYPES only, as every client does.
  const require = createRequire(import.meta.url);
  // When we start a broker, the gateway's code (its library entry: no side effects) loads
  // while the broker comes up in its own process, so the two overlap instead of adding up;
  // the stdio entry below then finds its modules loaded. It serves only once a broker
  // answers, because it asks the broker for the operator's toolsets when it starts.
  const loadGateway = () => import(pathToFileURL(require.resolve('@terminal-mcp/gateway')).href).catch(() => undefined);
  const { ensureBrokerRunning, holdBrokerPresence } = await import('./stdio-launch.js');
  const state = await ensureBrokerRunning(process.env, loadGateway);
  if (state === 'failed') {
    process.stderr.write('terminal-mcp: the broker did not come up; tools will answer BROKER_UNAVAILABLE until it does\n');
  }
  holdBrokerPresence(process.env);
  await import(pathToFileURL(require.resolve('@terminal-mcp/gateway/stdio')).href);
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
      process.stdout.write(await usage());
      return exit(0);
    case '--version':
    case '-V':
      process.stdout.write(`terminal-mcp ${BROKER_VERSION}\n`);
      return exit(0);
    case 'status':
      return exit(await (await import('./status-command.js')).statusCommand(args, env));
    case 'stop':
      return exit(await (await import('./stop-command.js')).stopCommand(args, env));
    case 'doctor':
      return exit(await (await import('./doctor-command.js')).doctorCommand(args, env));
    case 'client-config':
      return exit((await import('./client-config-command.js')).clientConfigCommand(args, env));
    case 'backup':
      return exit(await (await import('./backup-command.js')).backupCommand(args, env));
    case 'restore':
      return exit(await (await import('./backup-command.js')).restoreCommand(args, env));
    case 'registry-cleanup':
      return exit(await (await import('./registry-cleanup-cli.js')).registryCleanupMain(['cleanup', ...args]));
    default:
      process.stderr.write(`terminal-mcp: unknown command ${JSON.stringify(command.slice(0, 40))}\n${await usage()}`);
      return exit(2);
  }
}

main(process.argv.slice(2)).catch((err: unknown) => {
  process.stderr.write(`terminal-mcp: ${(err as Error).message}\n`);
  process.exit(1);
});
