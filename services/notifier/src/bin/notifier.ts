#!/usr/bin/env node
/** `terminal-mcp-notifier`: sends the notices the broker queued to the configured webhook
 * and push channels, and the supervisor events to supervisor.notify.url. No listener of
 * its own: it talks to the broker over notifier.sock only. Logs JSON to stderr; stops on
 * SIGINT/SIGTERM within the services' stop deadline (exit 3 when forced,
 * http-guard/stop-deadline.ts). */
import { createBrokerClient } from '@terminal-mcp/broker-client';
import { serviceCommandFlags } from '@terminal-mcp/contract';
import { createLogSink } from '@terminal-mcp/http-guard/log-sink';
import { boundedStop } from '@terminal-mcp/http-guard/stop-deadline';
import { createNotifierLogger } from '../logger.js';
import { startNotifier } from '../notifier.js';
import { NOTIFIER_VERSION } from '../version.js';

const NAME = 'terminal-mcp-notifier';
const SUMMARY = `Sends the notices the broker queued (notification channels: JSON webhooks and
ntfy-style push) and the supervisor's events (supervisor.notify.url) over HTTP, so the
privileged broker opens no network connection. Talks to the broker over notifier.sock
only; the channels are configured in the broker's config.yaml. Environment:
TERMINAL_MCP_SOCKET_DIR, TERMINAL_MCP_LOG_LEVEL. See docs/operations.md.`;

const flags = serviceCommandFlags(process.argv.slice(2), { name: NAME, version: NOTIFIER_VERSION, summary: SUMMARY });
if (flags) {
  process[flags.stream].write(flags.text);
  process.exit(flags.exitCode);
}

/** The process's life: start, and a bounded stop on the first SIGINT/SIGTERM. */
function main(): void {
  const sink = createLogSink();
  const log = createNotifierLogger(undefined, sink);
  const client = createBrokerClient({ role: 'notifier', env: process.env });
  const running = startNotifier({ client, log });
  log.info({ event: 'notifier.starting', version: NOTIFIER_VERSION }, 'starting');

  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ event: 'notifier.stopping', signal }, 'stopping');
    boundedStop({ sink, overdue: (deadlineMs) => log.error({ event: 'notifier.stop_overdue', deadlineMs }, 'stop did not finish in time; exiting without it') }).run(() => running.close());
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
}

main();
