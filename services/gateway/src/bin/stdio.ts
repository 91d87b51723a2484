#!/usr/bin/env node
/**
 * `terminal-mcp-gateway-stdio` (run by the `terminal-mcp` launcher): the MCP gateway over stdio. stdout carries MCP frames and NOTHING
 * else — logs go to stderr, and console output from any dependency is sent there too.
 * The broker is reached lazily on the first tool call, so with the broker down the
 * server still starts and tool calls answer BROKER_UNAVAILABLE. (Starting the broker is
 * the privileged package's job, not this unprivileged process's.)
 */
import { userInfo } from 'node:os';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createBrokerClient, defaultSocketPath } from '@terminal-mcp/broker-client';
import { serviceCommandFlags, toolsetsForCaller } from '@terminal-mcp/contract';
import { gatewayCatalogue } from '../catalogue.js';
import { createLogSink } from '@terminal-mcp/http-guard/log-sink';
import { boundedStop } from '@terminal-mcp/http-guard/stop-deadline';
import { createGatewayLogger } from '../logger.js';
import { createToolMetrics } from '../metrics.js';
import { createGatewayMcpServer } from '../server.js';
import { brokerToolsetConfig } from '../toolset-config.js';
import { GATEWAY_VERSION } from '../version.js';

// One stray console.log would corrupt the protocol stream.
console.log = console.error;
console.info = console.error;
console.debug = console.error;

const SUMMARY = `The MCP gateway over stdio, reaching an already running broker over gateway.sock.
Desktop clients run \`terminal-mcp\` instead, which also starts a broker when none runs.
Environment: TERMINAL_MCP_SOCKET_DIR, TERMINAL_MCP_LOG_LEVEL.`;

async function main(): Promise<void> {
  const flags = serviceCommandFlags(process.argv.slice(2), { name: 'terminal-mcp-gateway-stdio', version: GATEWAY_VERSION, summary: SUMMARY });
  if (flags) {
    process[flags.stream].write(flags.text);
    process.exit(flags.exitCode);
  }
  const sink = createLogSink();
  const log = createGatewayLogger(undefined, undefined, sink);
  // The stdio gateway's caller is the local user who started it: the broker audits and
  // scopes its calls as that user, whatever name the MCP client gives itself.
  const user = userInfo().username;
  const broker = createBrokerClient({ role: 'gateway', env: process.env, principal: () => `stdio:${user}` });
  // The operator's toolsets for the local user (config.yaml gateway.toolsets.stdio); with no
  // broker answering yet, the defaults. One client, one catalogue for the whole run.
  const toolsets = toolsetsForCaller(await brokerToolsetConfig(broker).current(), { kind: 'stdio' });
  const server = createGatewayMcpServer({ broker, metrics: createToolMetrics(), log, catalogue: gatewayCatalogue({ toolsets }) });
  const transport = new StdioServerTransport();

  let stopping = false;
  const shutdown = (why: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ event: 'gateway.stopping', why }, 'stopping');
    boundedStop({ sink, overdue: (deadlineMs) => log.error({ event: 'gateway.stop_overdue', deadlineMs }, 'stop did not finish in time; exiting without it') }).run(() => server.close());
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  // The client closing our stdin is the normal way a stdio server is told to stop.
  process.stdin.on('end', () => shutdown('stdin closed'));
  process.stdin.on('close', () => shutdown('stdin closed'));

  await server.connect(transport);
  log.info({ event: 'gateway.started', transport: 'stdio', broker_socket: defaultSocketPath('gateway', process.env) }, 'MCP gateway on stdio');
}

main().catch((err: unknown) => {
  process.stderr.write(`terminal-mcp: failed to start: ${(err as Error).message}\n`);
  process.exit(1);
});
