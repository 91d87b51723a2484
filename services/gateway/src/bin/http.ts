#!/usr/bin/env node
/** `terminal-mcp-http`: the MCP gateway over Streamable HTTP (live sessions, stateless fallback), loopback only.
 * Exit status 2 when a setting is refused (e.g. a non-loopback host), 1 on other start
 * failures. Prints its URLs to stdout and logs JSON to stderr; stops cleanly on SIGINT/SIGTERM. */
import { serviceCommandFlags } from '@terminal-mcp/contract';
import { createGatewayLogger } from '../logger.js';
import { startGatewayHttp, type RunningGatewayHttp } from '../http/gateway-http.js';
import { GatewayConfigError, httpSettingsFromEnv } from '../http/options.js';
import { GATEWAY_VERSION } from '../version.js';

const NAME = 'terminal-mcp-http';
const SUMMARY = `The full MCP gateway over Streamable HTTP on loopback (http://127.0.0.1:8766/mcp),
talking to the broker over gateway.sock. Health: /health/live, /health/ready; metrics:
/health/metrics. Environment: TERMINAL_MCP_GATEWAY_HOST, TERMINAL_MCP_GATEWAY_PORT,
TERMINAL_MCP_GATEWAY_TOKEN, TERMINAL_MCP_PUBLIC_HOSTS, TERMINAL_MCP_TRUSTED_PROXY,
TERMINAL_MCP_SOCKET_DIR, TERMINAL_MCP_LOG_LEVEL. See docs/operations.md.`;

async function main(): Promise<void> {
  const flags = serviceCommandFlags(process.argv.slice(2), { name: NAME, version: GATEWAY_VERSION, summary: SUMMARY });
  if (flags) {
    process[flags.stream].write(flags.text);
    process.exit(flags.exitCode);
  }
  const log = createGatewayLogger();
  let running: RunningGatewayHttp;
  let tokenSet = false;
  try {
    const settings = httpSettingsFromEnv(process.env);
    tokenSet = settings.token !== undefined;
    running = await startGatewayHttp({ ...settings, env: process.env, log });
  } catch (err) {
    if (err instanceof GatewayConfigError) {
      process.stderr.write(`${NAME}: ${err.message}\n`);
      process.exit(2);
    }
    if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      process.stderr.write(`${NAME}: the port is already in use (${(err as Error).message}); set TERMINAL_MCP_GATEWAY_PORT\n`);
      process.exit(1);
    }
    throw err;
  }
  // The banner is for a person at a terminal: stdout. stderr carries only the JSON log,
  // which npm start and the launcher write to the log files.
  log.info({ event: 'gateway.listening', mcpUrl: running.mcpUrl, healthUrl: running.healthUrl }, 'listening');
  process.stdout.write(`${NAME}: MCP endpoint ${running.mcpUrl}\n`);
  process.stdout.write(`${NAME}: health ${running.healthUrl}\n`);
  if (running.oauth) {
    process.stdout.write(`${NAME}: OAuth on for ${running.oauth.resource} (authorization server ${running.oauth.issuer}); connect ChatGPT to that URL\n`);
  } else if (!tokenSet) {
    process.stdout.write(`${NAME}: no TERMINAL_MCP_GATEWAY_TOKEN set: any local process can call /mcp; put an authenticating tunnel in front for remote use\n`);
  }

  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ event: 'gateway.stopping', signal }, 'stopping');
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
