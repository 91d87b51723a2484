/** JSON logs to stderr, always: on stdio, stdout IS the MCP channel, and one stray byte
 * there corrupts the protocol. Pane text is never logged — log facts (tool, code, ids,
 * durations), not content; the redact paths are a net under that rule, not the rule. */
import { createLogSink, type LogSink } from '@terminal-mcp/http-guard/log-sink';
import pino, { type Logger } from 'pino';

export type { Logger };

/** `sink`: stderr through a sink that never blocks or loops when its reader is gone
 * (http-guard/log-sink.ts); the bins pass theirs, to drain it before they exit. */
export function createGatewayLogger(level: string = process.env.TERMINAL_MCP_LOG_LEVEL || 'info', name = 'terminal-mcp-gateway', sink: LogSink = createLogSink()): Logger {
  return pino(
    {
      name,
      level,
      redact: {
        paths: ['*.text', '*.token', '*.authorization', 'text', 'token', 'authorization', 'req.headers.authorization'],
        censor: '[REDACTED]',
      },
    },
    sink,
  );
}
