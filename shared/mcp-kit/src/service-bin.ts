/**
 * The life of an HTTP service's binary (terminal-mcp-http, terminal-mcp-observer):
 * `--help`/`--version` (and exit 2 on any other argument), start, a banner for a person
 * at a terminal on stdout (stderr carries only the JSON log, which npm start writes to
 * the log file), and a clean stop on SIGINT/SIGTERM. Exit status 2 when a setting is
 * refused (a ServiceConfigError, e.g. a non-loopback host), 1 on other start failures
 * (a port in use names the variable that moves it). The stop is bounded: exit 3 at its
 * deadline (http-guard/stop-deadline.ts), its log through a sink that never blocks.
 */
import { serviceCommandFlags } from '@terminal-mcp/contract';
import { createLogSink, type LogSink } from '@terminal-mcp/http-guard/log-sink';
import { boundedStop } from '@terminal-mcp/http-guard/stop-deadline';
import type { Logger } from 'pino';
import { ServiceConfigError } from './service-settings.js';

export interface StartedService {
  close(): Promise<void>;
  /** Fields of the `<event>.listening` log line. */
  listening: Record<string, unknown>;
  /** Lines for stdout, each printed after `<name>: `. */
  banner: readonly string[];
}

export interface ServiceBin {
  name: string;
  version: string;
  summary: string;
  /** Log event prefix: `<event>.listening`, `<event>.stopping`. */
  event: string;
  /** Named when the port is in use. */
  portVariable: string;
  /** The service's logger, writing to `sink` (drained before the process exits). */
  createLogger(sink: LogSink): Logger;
  /** Reads the settings and starts the service. */
  start(log: Logger): Promise<StartedService>;
}

export function runServiceBin(bin: ServiceBin): void {
  main(bin).catch((err: unknown) => {
    process.stderr.write(`${bin.name}: failed to start: ${(err as Error).message}\n`);
    process.exit(1);
  });
}

async function main(bin: ServiceBin): Promise<void> {
  const { name } = bin;
  const flags = serviceCommandFlags(process.argv.slice(2), { name, version: bin.version, summary: bin.summary });
  if (flags) {
    process[flags.stream].write(flags.text);
    process.exit(flags.exitCode);
  }
  const sink = createLogSink();
  const log = bin.createLogger(sink);
  let running: StartedService;
  try {
    running = await bin.start(log);
  } catch (err) {
    if (err instanceof ServiceConfigError) {
      process.stderr.write(`${name}: ${err.message}\n`);
      process.exit(2);
    }
    if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      process.stderr.write(`${name}: the port is already in use (${(err as Error).message}); set ${bin.portVariable}\n`);
      process.exit(1);
    }
    throw err;
  }
  log.info({ event: `${bin.event}.listening`, ...running.listening }, 'listening');
  for (const line of running.banner) process.stdout.write(`${name}: ${line}\n`);

  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ event: `${bin.event}.stopping`, signal }, 'stopping');
    boundedStop({ sink, overdue: (deadlineMs) => log.error({ event: `${bin.event}.stop_overdue`, deadlineMs }, 'stop did not finish in time; exiting without it') }).run(() => running.close());
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
}
