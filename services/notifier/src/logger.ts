/** JSON logs to stderr, through a sink that never blocks or loops when its reader is gone
 * (http-guard/log-sink.ts). Channel URLs (which may carry a token) and notice text are
 * never logged: log the delivery id, the target's name and the outcome. */
import { createLogSink, type LogSink } from '@terminal-mcp/http-guard/log-sink';
import pino, { type Logger } from 'pino';

export type { Logger };

export function createNotifierLogger(level: string = process.env.TERMINAL_MCP_LOG_LEVEL || 'info', sink: LogSink = createLogSink()): Logger {
  return pino({ name: 'terminal-mcp-notifier', level, redact: { paths: ['url', '*.url', 'body', '*.body', 'headers', '*.headers'], censor: '[REDACTED]' } }, sink);
}
