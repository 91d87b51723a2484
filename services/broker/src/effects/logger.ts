/** JSON logs to stderr (stdout may be an MCP channel in some processes). Pane content
 * and secrets are never logged: log facts (ids, lengths, codes), not text. Written
 * through a log sink that never blocks the event loop or the exit and gives up when the
 * reader is gone (shared/contract/src/log-sink.ts: why not pino's own destination). */
import { createLogSink, type LogSink } from '@terminal-mcp/http-guard/log-sink';
import pino, { type Logger } from 'pino';

export function createLogger(level: string, name = 'terminal-mcp-broker', sink: LogSink = createLogSink()): Logger {
  return pino(
    {
      name,
      level,
      redact: { paths: ['*.text', '*.password', '*.token', 'text', 'password', 'token'], censor: '[REDACTED]' },
    },
    sink,
  );
}
