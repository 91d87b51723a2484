#!/usr/bin/env node
/** `terminal-mcp-observer`: the read-only MCP server with its OAuth authorization server,
 * loopback only (http://127.0.0.1:8767 by default). Exit status 2 when a setting is
 * refused (e.g. a non-loopback host or a non-https public URL), 1 on other start
 * failures. Prints its URL to stdout and logs JSON to stderr; stops cleanly on SIGINT/SIGTERM. */
import { serviceCommandFlags } from '@terminal-mcp/contract';
import { startObserverHttp, type RunningObserverHttp } from '../http/observer-http.js';
import { ObserverConfigError, observerSettingsFromEnv } from '../http/options.js';
import { createObserverLogger } from '../logger.js';
import { OBSERVER_VERSION } from '../version.js';

const NAME = 'terminal-mcp-observer';
const SUMMARY = `The read-only MCP server with its OAuth 2.1 authorization server, on loopback
(http://127.0.0.1:8767/mcp), for claude.ai and the Claude apps through an HTTPS tunnel.
Health: /health/live, /health/ready. Environment: TERMINAL_MCP_OBSERVER_HOST,
TERMINAL_MCP_OBSERVER_PORT, TERMINAL_MCP_OBSERVER_PUBLIC_URL, TERMINAL_MCP_PUBLIC_HOSTS,
TERMINAL_MCP_SOCKET_DIR, TERMINAL_MCP_LOG_LEVEL. See docs/claude-web-connector.md.`;

async function main(): Promise<void> {
  const flags = serviceCommandFlags(process.argv.slice(2), { name: NAME, version: OBSERVER_VERSION, summary: SUMMARY });
  if (flags) {
    process[flags.stream].write(flags.text);
    process.exit(flags.exitCode);
  }
  const log = createObserverLogger();
  let running: RunningObserverHttp;
  let settings;
  try {
    settings = observerSettingsFromEnv(process.env);
    running = await startObserverHttp({ ...settings, env: process.env, log });
  } catch (err) {
    if (err instanceof ObserverConfigError) {
      process.stderr.write(`${NAME}: ${err.message}\n`);
      process.exit(2);
    }
    if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      process.stderr.write(`${NAME}: the port is already in use (${(err as Error).message}); set TERMINAL_MCP_OBSERVER_PORT\n`);
      process.exit(1);
    }
    throw err;
  }
  // The banner is for a person at a terminal: stdout. stderr carries only the JSON log,
  // which npm start writes to the log file.
  log.info({ event: 'observer.listening', mcpUrl: running.mcpUrl, publicUrl: running.publicUrl }, 'listening');
  process.stdout.write(`${NAME}: MCP endpoint ${running.mcpUrl} (listening on ${running.host}:${running.port})\n`);
  if (!settings.publicUrl) {
    process.stdout.write(`${NAME}: TERMINAL_MCP_OBSERVER_PUBLIC_URL is not set: OAuth metadata names ${running.publicUrl}, reachable from this machine only; set it to your tunnel's https URL for claude.ai\n`);
  }

  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ event: 'observer.stopping', signal }, 'stopping');
    running.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
}

main().catch((err: unknown) => {
  process.stderr.write(`${NAME}: failed to start: ${(err as Error).message}\n`);
  process.exit(1);
});
