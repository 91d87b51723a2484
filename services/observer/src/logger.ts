/** JSON logs to stderr. Tokens, codes, passwords and pane or file text are never logged:
 * log facts (endpoint, client id, user, error code, durations); the redact paths are a
 * net under that rule, not the rule. */
import { createLogSink, type LogSink } from '@terminal-mcp/http-guard/log-sink';
import pino, { type Logger } from 'pino';

export type { Logger };

/** `sink`: stderr through a sink that never blocks or loops when its reader is gone
 * (http-guard/log-sink.ts); the bin passes its own, to drain it before it exits. */
export function createObserverLogger(level: string = process.env.TERMINAL_MCP_LOG_LEVEL || 'info', sink: LogSink = createLogSink()): Logger {
  return pino(
    {
      name: 'terminal-mcp-observer',
      level,
      redact: {
        paths: ['*.text', '*.token', '*.password', '*.code', '*.authorization', 'text', 'token', 'password', 'authorization', 'req.headers.authorization', 'req.headers.cookie'],
        censor: '[REDACTED]',
      },
    },
    sink,
  );
}
