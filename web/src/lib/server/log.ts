/** One JSON line per event on stderr, in the same shape pino writes for the broker,
 * gateway and observer (numeric `level`, epoch-ms `time`, `pid`, `hostname`, `name`,
 * `msg`), so one tool reads every service's log. TERMINAL_MCP_LOG_LEVEL filters, as for
 * the other services. Never pass tokens, passwords or pane text here. Written through a
 * sink that never blocks or loops when stderr's reader is gone (http-guard/log-sink.ts):
 * one per process, made at the first line; the server drains it before it exits. */
import { hostname } from 'node:os';
import { createLogSink, type LogSink } from '@terminal-mcp/http-guard/log-sink';

// eslint-disable-next-line terminal-mcp/no-module-state -- the dashboard server's one log sink (SvelteKit server modules have no composition root); it holds no request's data
let sink: LogSink | undefined;

/** This process's log sink (made on first use). */
export function webLogSink(): LogSink {
  return (sink ??= createLogSink());
}

const LEVELS = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60, silent: Infinity } as const;

function threshold(): number {
  const name = process.env.TERMINAL_MCP_LOG_LEVEL as keyof typeof LEVELS | undefined;
  return name && name in LEVELS ? LEVELS[name] : LEVELS.info;
}

export function logEvent(level: 'info' | 'warn' | 'error', fields: Record<string, unknown>): void {
  if (LEVELS[level] < threshold()) return;
  const msg = typeof fields.event === 'string' ? fields.event : level;
  webLogSink().write(`${JSON.stringify({ level: LEVELS[level], time: Date.now(), pid: process.pid, hostname: hostname(), name: 'terminal-mcp-web', msg, ...fields })}\n`);
}
